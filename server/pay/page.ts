import { fromCents } from '../sessions/money.js';
import type { SessionRecord } from '../sessions/session.js';
import { methodFields, methodLabels } from './magic-keys.js';

// Server-rendered pages: no build step, no script needed to pay (the
// countdown and the method switch are progressive enhancements).

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
  body { margin: 0; padding: 1rem; line-height: 1.5; }
  main { max-width: 32rem; margin: 0 auto; }
  h1 { font-size: 1.4rem; margin: 0 0 .5rem; }
  .amount { font-size: 2rem; font-weight: 700; margin: .25rem 0 1rem; }
  fieldset { border: 1px solid #8886; border-radius: .5rem; margin: 0 0 1rem; padding: .75rem 1rem; }
  legend { font-weight: 600; padding: 0 .25rem; }
  label { display: block; margin: .5rem 0 .2rem; }
  input[type=text], input[type=tel], input[type=email] { width: 100%; box-sizing: border-box; padding: .6rem; font-size: 1rem; border: 1px solid #888; border-radius: .35rem; }
  .choice label { display: inline-flex; gap: .4rem; align-items: center; margin-right: 1rem; }
  button { font-size: 1.1rem; padding: .7rem 1.4rem; border-radius: .4rem; border: 0; background: #1f5fbf; color: #fff; cursor: pointer; }
  button:focus-visible, input:focus-visible { outline: 3px solid #f5a623; outline-offset: 2px; }
  .hint { color: #666; font-size: .9rem; }
  .result { padding: 1rem; border-radius: .5rem; border: 2px solid; }
  .ok { border-color: #2e7d32; } .bad { border-color: #c62828; }
  [hidden] { display: none !important; }
</style>
</head>
<body><main>${body}</main></body>
</html>`;
}

export function paymentPage(session: SessionRecord, methods: string[], nowMs: number, error?: string): string {
  const amount = `${fromCents(session.amount_cents).toFixed(2)} ${session.currency_reference}`;
  const dueMs = session.due_date_session ? Date.parse(session.due_date_session) : null;
  const methodChoices = methods
    .map((method, index) => `<label><input type="radio" name="method" value="${escapeHtml(method)}"${index === 0 ? ' checked' : ''} data-method> ${escapeHtml(methodLabels[method] ?? method)}</label>`)
    .join('\n');
  const methodSections = methods
    .map(
      (method, index) => `<fieldset data-fields="${escapeHtml(method)}"${index === 0 ? '' : ' hidden'}>
  <legend>${escapeHtml(methodLabels[method] ?? method)} details</legend>
  ${(methodFields[method] ?? [])
    .map(
      (field) => `<label for="${method}-${field.name}">${escapeHtml(field.label)}</label>
  <input type="text" id="${method}-${field.name}" name="${field.name}"${field.autocomplete ? ` autocomplete="${field.autocomplete}"` : ''}${field.inputmode ? ` inputmode="${field.inputmode}"` : ''}${field.placeholder ? ` placeholder="${escapeHtml(field.placeholder)}"` : ''}${index === 0 ? ' required' : ''}>`,
    )
    .join('\n  ')}
</fieldset>`,
    )
    .join('\n');
  return layout(
    `Pay ${amount}`,
    `<h1>Payment</h1>
${session.description ? `<p>${escapeHtml(session.description)}</p>` : ''}
<p class="amount" aria-label="Amount to pay">${escapeHtml(amount)}</p>
${dueMs !== null ? `<p>Time left: <strong id="countdown" data-due="${dueMs}" data-now="${nowMs}" aria-live="polite">${escapeHtml(formatLeft(dueMs - nowMs))}</strong></p>` : '<p>This payment has no due date.</p>'}
${error ? `<p class="result bad" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/pay/${escapeHtml(session.session_id)}">
<fieldset class="choice"><legend>Payment method</legend>
${methodChoices}
</fieldset>
${methodSections}
<fieldset>
  <legend>Payment key</legend>
  <label for="payment_key">Key</label>
  <input type="text" id="payment_key" name="payment_key" inputmode="numeric" autocomplete="one-time-code" required aria-describedby="key-hint">
  <p class="hint" id="key-hint">Simulator keys: 000000 pays; 111111 fails (insufficient funds); 222222 fails (rejected by issuer); 333333 expires the session; anything else fails (invalid key).</p>
</fieldset>
<fieldset class="choice"><legend>How the accreditation (leg 2) ends</legend>
<label><input type="radio" name="leg2" value="accredited" checked> Accredited</label>
<label><input type="radio" name="leg2" value="accreditation_failed"> Accreditation fails</label>
</fieldset>
<button type="submit">Pay ${escapeHtml(amount)}</button>
</form>
<script>
for (const radio of document.querySelectorAll('[data-method]')) radio.addEventListener('change', () => {
  for (const section of document.querySelectorAll('[data-fields]')) {
    const on = section.dataset.fields === radio.value;
    section.hidden = !on;
    for (const input of section.querySelectorAll('input')) input.required = on;
  }
});
const countdown = document.getElementById('countdown');
if (countdown) {
  const offset = Number(countdown.dataset.now) - Date.now();
  const tick = () => {
    const left = Number(countdown.dataset.due) - (Date.now() + offset);
    countdown.textContent = left <= 0 ? 'due date reached' : new Date(left).toISOString().slice(11, 19) + (left >= 86400000 ? ' (+' + Math.floor(left / 86400000) + ' d)' : '');
  };
  tick();
  setInterval(tick, 1000);
}
</script>`,
  );
}

export function resultPage(session: SessionRecord, title: string, message: string, ok: boolean): string {
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p class="result ${ok ? 'ok' : 'bad'}" role="status">${escapeHtml(message)}</p>
<p>Session <code>${escapeHtml(session.session_id)}</code> is now <strong id="status">${escapeHtml(session.status)}</strong>${session.accreditation.status === 'scheduled' ? `; its accreditation is scheduled for ${escapeHtml(session.accreditation.scheduled_for ?? '')}` : ''}.</p>`,
  );
}

export function notFoundPage(sessionId: string): string {
  return layout('Payment not found', `<h1>Payment not found</h1><p class="result bad" role="alert">There is no payment session ${escapeHtml(sessionId)}.</p>`);
}

function formatLeft(ms: number): string {
  if (ms <= 0) return 'due date reached';
  const days = Math.floor(ms / 86_400_000);
  return new Date(ms).toISOString().slice(11, 19) + (days > 0 ? ` (+${days} d)` : '');
}
