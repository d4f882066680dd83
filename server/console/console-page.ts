// GET /console: a small web console with no build step and no dependency.
// It talks to the console API with the token pasted into it. Every value
// shown is set as text, never as HTML: the trace holds whatever anyone
// posted to the captura receiver.

export const consolePage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Simulator console</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
  body { margin: 0; padding: 1rem; line-height: 1.4; }
  main { max-width: 70rem; margin: 0 auto; display: grid; gap: 1rem; }
  section { border: 1px solid #8886; border-radius: .5rem; padding: .75rem 1rem; }
  h1 { font-size: 1.4rem; margin: 0; } h2 { font-size: 1.1rem; margin: 0 0 .5rem; }
  label { font-weight: 600; margin-right: .5rem; }
  input { font-size: 1rem; padding: .4rem; width: min(40rem, 100%); box-sizing: border-box; }
  button { font-size: .95rem; padding: .35rem .8rem; cursor: pointer; }
  button:focus-visible, input:focus-visible { outline: 3px solid #f5a623; outline-offset: 2px; }
  table { border-collapse: collapse; width: 100%; font-size: .9rem; }
  th, td { text-align: left; padding: .25rem .4rem; border-bottom: 1px solid #8884; vertical-align: top; }
  code, pre { font-family: ui-monospace, monospace; font-size: .85rem; word-break: break-all; white-space: pre-wrap; margin: 0; }
  .done { color: #2e7d32; } .todo { color: #888; }
  #error { color: #c62828; }
  @media (min-width: 60rem) { .two { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; } }
</style>
</head>
<body>
<main>
<h1>Simulator console</h1>
<section>
  <form id="login">
    <label for="token">Console token</label>
    <input id="token" name="token" autocomplete="off" spellcheck="false" placeholder="ct_…" required>
    <button type="submit">Open</button>
  </form>
  <p id="error" role="alert"></p>
</section>
<div class="two">
<section aria-labelledby="keys-title"><h2 id="keys-title">Keys</h2><div id="keys">—</div></section>
<section aria-labelledby="progress-title"><h2 id="progress-title">Progress</h2><ol id="progress"></ol></section>
</div>
<section aria-labelledby="sessions-title"><h2 id="sessions-title">Sessions</h2>
  <table><thead><tr><th>Session</th><th>Status</th><th>Amount</th><th>Accreditation</th><th>Created</th></tr></thead><tbody id="sessions"></tbody></table>
</section>
<section aria-labelledby="trace-title"><h2 id="trace-title">Trace <small>(live)</small></h2>
  <table><thead><tr><th>At</th><th>Type</th><th>Details</th><th></th></tr></thead><tbody id="trace" aria-live="polite"></tbody></table>
</section>
</main>
<script>
const $ = (id) => document.getElementById(id);
let token = sessionStorage.getItem('console-token') || '';
let timer = null;

const el = (tag, text, attrs = {}) => {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
};
const row = (cells) => {
  const tr = el('tr');
  for (const cell of cells) {
    const td = el('td');
    if (cell instanceof Node) td.append(cell); else td.textContent = cell ?? '';
    tr.append(td);
  }
  return tr;
};

async function api(path, options = {}) {
  const response = await fetch(path, { ...options, headers: { authorization: 'Bearer ' + token, ...(options.headers || {}) } });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.message || ('HTTP ' + response.status));
  return body;
}

function details(entry) {
  const { id, type, at, ...rest } = entry;
  const shown = {};
  for (const key of ['session_id', 'event', 'receiver', 'routing', 'attempt', 'attempts', 'status', 'error', 'duration_ms', 'from', 'to', 'outcome', 'idempotency_key']) if (key in rest) shown[key] = rest[key];
  return el('code', Object.entries(shown).map(([k, v]) => k + '=' + v).join('  '));
}

// Resend results by event id: they outlive the live redraws of the trace.
const resent = new Map();

async function resend(eventId) {
  resent.set(eventId, 'resending…');
  await refreshTrace().catch(() => undefined);
  try {
    const result = await api('/console/webhooks/' + encodeURIComponent(eventId) + '/resend', { method: 'POST' });
    resent.set(eventId, 'resent: ' + (result.status ?? result.error) + ' (' + result.routing + ', ' + result.duration_ms + ' ms)');
  } catch (error) {
    resent.set(eventId, 'resend failed: ' + error.message);
  }
  await refreshTrace().catch(() => undefined);
}

async function refreshTrace() {
  const { data } = await api('/console/trace?limit=100');
  const body = $('trace');
  body.replaceChildren(...data.map((entry) => {
    let action = '';
    if (entry.type === 'webhook.emitted') {
      action = el('div');
      const button = el('button', 'Resend', { type: 'button', 'aria-label': 'Resend ' + entry.event + ' ' + entry.event_id });
      button.addEventListener('click', () => resend(entry.event_id));
      action.append(button, el('span', resent.get(entry.event_id) ?? '', { role: 'status', 'data-resend': entry.event_id }));
    }
    const tr = row([entry.at, entry.type, details(entry), action]);
    tr.dataset.type = entry.type;
    return tr;
  }));
}

async function refreshAll() {
  const [keys, sessions, progress] = await Promise.all([api('/console/keys'), api('/console/sessions'), api('/console/progress')]);
  const keysBox = el('div');
  for (const key of keys.keys) {
    keysBox.append(el('p', 'API token'), el('pre', key.token), el('p', 'Webhook secret'), el('pre', key.webhook_secret));
  }
  keysBox.append(el('p', 'Default receivers'));
  for (const [name, url] of Object.entries(keys.hooks)) keysBox.append(el('pre', name + ': ' + url));
  $('keys').replaceChildren(keysBox);
  $('progress').replaceChildren(...progress.steps.map((step) => el('li', (step.done ? '✓ ' : '○ ') + step.title, { class: step.done ? 'done' : 'todo' })));
  $('sessions').replaceChildren(...sessions.data.map((s) => row([s.session_id, s.status, s.amount_reference + ' ' + s.currency_reference, s.accreditation.status, s.created_at])));
  await refreshTrace();
}

async function open() {
  $('error').textContent = '';
  try {
    await refreshAll();
    sessionStorage.setItem('console-token', token);
    clearInterval(timer);
    timer = setInterval(() => refreshAll().catch((error) => ($('error').textContent = error.message)), 1000);
  } catch (error) {
    $('error').textContent = error.message;
  }
}

$('login').addEventListener('submit', (event) => {
  event.preventDefault();
  token = $('token').value.trim();
  open();
});
if (token) {
  $('token').value = token;
  open();
}
</script>
</body>
</html>`;
