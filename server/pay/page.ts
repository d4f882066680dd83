import { fromCents } from '../sessions/money.js';
import type { SessionRecord } from '../sessions/session.js';
import { methodFields, methodLabels } from './magic-keys.js';
import { formatLeft } from './time-left.js';
import { escapeHtml, htmlDocument, palette } from '../system/page-shell.js';

// Server-rendered pages: no script needed to pay. The page's script
// (web/main.ts, served as /pay/app.js) only enhances: the method switch, the
// countdown, local times, following leg 2.

const css = `${palette}
  body { margin: 0; padding: 1rem; line-height: 1.5; }
  main { max-width: 32rem; margin: 0 auto; }
  h1 { font-size: 1.4rem; margin: 0 0 .5rem; }
  .amount { font-size: 2rem; font-weight: 700; margin: .25rem 0 1rem; }
  fieldset { border: 1px solid var(--line); border-radius: .5rem; margin: 0 0 1rem; padding: .75rem 1rem; }
  legend { font-weight: 600; padding: 0 .25rem; }
  label { display: block; margin: .5rem 0 .2rem; }
  input[type=text], input[type=tel], input[type=email] { width: 100%; box-sizing: border-box; padding: .6rem; font-size: 1rem; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: .35rem; }
  .choice label { display: inline-flex; gap: .4rem; align-items: center; margin-right: 1rem; }
  button { font-size: 1.1rem; padding: .7rem 1.4rem; border-radius: .4rem; border: 0; background: var(--link); color: var(--bg); cursor: pointer; }
  button:disabled { opacity: .6; cursor: not-allowed; }
  button:focus-visible, input:focus-visible, a:focus-visible { outline: 3px solid var(--link); outline-offset: 2px; }
  .hint { color: var(--muted); font-size: .9rem; }
  .result { padding: 1rem; border-radius: .5rem; border: 2px solid; }
  .ok { border-color: var(--ok); } .bad { border-color: var(--bad); }
  code { word-break: break-all; }
  [hidden] { display: none !important; }
`;

function layout(title: string, body: string): string {
  return htmlDocument(title, css, body);
}

/** What the payer sent, put back in the form after a refusal: the method, the fields typed, the leg-2 choice (never the key). */
export interface FormEcho {
  method?: string;
  fields?: Record<string, string>;
  leg2?: string;
}

export function paymentPage(
  session: SessionRecord,
  methods: string[],
  nowMs: number,
  error?: string,
  echo: FormEcho = {},
): string {
  const amount = formatAmount(session);
  const dueMs = session.due_date_session ? Date.parse(session.due_date_session) : null;
  const chosen = echo.method && methods.includes(echo.method) ? echo.method : methods[0];
  const methodChoices = methods
    .map(
      (method) =>
        `<label><input type="radio" name="method" value="${escapeHtml(method)}"${method === chosen ? ' checked' : ''} data-method> ${escapeHtml(methodLabels[method] ?? method)}</label>`,
    )
    .join('\n');
  // Every method's fields are in the page and none is required by the browser: without JavaScript the
  // payer fills those of the method chosen, and the server checks exactly those. The script only hides the others.
  const methodSections = methods
    .map(
      (method) => `<fieldset data-fields="${escapeHtml(method)}">
  <legend>${escapeHtml(methodLabels[method] ?? method)} details</legend>
  ${(methodFields[method] ?? [])
    .map(
      (field) => `<label for="${method}-${field.name}">${escapeHtml(field.label)}</label>
  <input type="text" id="${method}-${field.name}" name="${method}.${field.name}"${field.autocomplete ? ` autocomplete="${field.autocomplete}"` : ''}${field.inputmode ? ` inputmode="${field.inputmode}"` : ''}${field.placeholder ? ` placeholder="${escapeHtml(field.placeholder)}"` : ''} value="${field.neverEchoed ? '' : escapeHtml(echo.fields?.[`${method}.${field.name}`] ?? '')}">`,
    )
    .join('\n  ')}
</fieldset>`,
    )
    .join('\n');
  const leg2 = echo.leg2 === 'accreditation_failed' ? 'accreditation_failed' : 'accredited';
  return layout(
    `Pay ${amount}`,
    `<h1>Payment</h1>
${session.description ? `<p>${escapeHtml(session.description)}</p>` : ''}
<p class="amount" aria-label="Amount to pay">${escapeHtml(amount)}</p>
${dueMs !== null ? `<p>Time left: <strong id="countdown" data-due="${dueMs}" data-now="${nowMs}">${escapeHtml(formatLeft(dueMs - nowMs))}</strong> <span class="hint">(due ${escapeHtml(formatUtc(dueMs))}<span data-local="${dueMs}"></span>)</span></p>` : '<p>This payment has no due date.</p>'}
<p id="expired" class="result bad" role="alert" hidden>The due date has passed: this payment can no longer be made.</p>
${error ? `<p class="result bad" role="alert" id="error-summary" tabindex="-1" autofocus>${escapeHtml(error)}</p>` : ''}
<form method="post" action="/pay/${escapeHtml(session.session_id)}" id="pay">
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
<label><input type="radio" name="leg2" value="accredited"${leg2 === 'accredited' ? ' checked' : ''}> Accredited</label>
<label><input type="radio" name="leg2" value="accreditation_failed"${leg2 === 'accreditation_failed' ? ' checked' : ''}> Accreditation fails</label>
</fieldset>
<button type="submit">Pay ${escapeHtml(amount)}</button>
</form>
<script type="module" src="/pay/app.js"></script>`,
  );
}

const statusWords: Record<string, string> = {
  pending: 'waiting for payment',
  paid: 'paid',
  failed: 'failed',
  expired: 'expired',
};

/** Where the session stands, leg 2 included, in words. */
function standing(session: SessionRecord): string {
  const leg1 = `This payment of ${formatAmount(session)} is ${statusWords[session.status] ?? session.status}`;
  if (session.status !== 'paid') return `${leg1}.`;
  switch (session.accreditation.status) {
    case 'scheduled':
      return `${leg1}; the accreditation to the merchant is under way (this page updates until it ends).`;
    case 'accredited':
      return `${leg1} and accredited to the merchant.`;
    case 'failed':
      return `${leg1}, but the accreditation to the merchant failed.`;
    default:
      return `${leg1}.`;
  }
}

export function resultPage(session: SessionRecord, title: string, message: string, ok: boolean): string {
  const scheduled = session.status === 'paid' && session.accreditation.status === 'scheduled';
  const due = scheduled && session.accreditation.scheduled_for ? Date.parse(session.accreditation.scheduled_for) : null;
  const page = layout(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p class="result ${ok ? 'ok' : 'bad'}" role="status">${escapeHtml(message)}</p>
<p id="standing">${escapeHtml(standing(session))}</p>
${due !== null ? `<p>Accreditation expected at ${escapeHtml(formatUtc(due))}<span data-local="${due}"></span>.</p>` : ''}
<p>Session <code>${escapeHtml(session.session_id)}</code>, status <strong id="status">${escapeHtml(session.status)}</strong>, accreditation <strong id="accreditation">${escapeHtml(session.accreditation.status)}</strong>.</p>
<p><a href="/pay/${escapeHtml(session.session_id)}"${scheduled ? ' data-follow' : ''}>${scheduled ? 'Check the accreditation again' : 'See this payment again'}</a></p>
<script type="module" src="/pay/app.js"></script>`,
  );
  return page;
}

export function notFoundPage(sessionId: string): string {
  return layout(
    'Payment not found',
    `<h1>Payment not found</h1><p class="result bad" role="alert">There is no payment session ${escapeHtml(sessionId)}.</p>`,
  );
}

function formatAmount(session: SessionRecord): string {
  return `${fromCents(session.amount_cents).toFixed(2)} ${session.currency_reference}`;
}

/** An instant as the interface writes times, readable: 2026-11-23 00:41:05 UTC. */
function formatUtc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
