// The console page's script (console-page.ts), as text: plain browser
// JavaScript, no template literals (it lives inside one). What it keeps
// live: the trace, pushed by the server as entries are written (one open
// stream, a comment every 15 s when idle), and, when those entries say
// something changed, the progress and the sessions, updated row by row.

export const consoleScript = String.raw`
const $ = (id) => document.getElementById(id);
const TRACE_TYPES = ['session.created', 'session.status_changed', 'webhook.emitted', 'webhook.attempt', 'webhook.gave_up', 'webhook.undelivered', 'webhook.received', 'control.outcome', 'control.reset', 'relay.connected', 'relay.disconnected'];
const SESSIONS_PER_PAGE = 20;
const TOKEN_GONE = 'This console token no longer works: a newer login replaced it, or it was mistyped. The console is locked and holds no token or secret any more: log in again below, or paste the current console token.';
const state = { pos: { terminalsPage: 1, ordersPage: 1, seen: null, timer: null }, clockBase: null, clockTimer: null, verifyParts: null, locked: false, token: sessionStorage.getItem('console-token') || '', keys: null, cursor: null, paused: false, timer: null, stream: null, progressTimer: null, sessionsPage: 1, entries: new Map(), resent: new Map(), session: null, event: null };

const el = (tag, text, attrs) => {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  return node;
};
/** An amount in a currency's own form: its code and its number of decimals (CLP none, USD two). */
const moneyFormat = (currency) => { try { return new Intl.NumberFormat('en', { style: 'currency', currency: currency, currencyDisplay: 'code' }); } catch { return null; } };
const money = (amount, currency) => { const f = moneyFormat(currency); return f ? f.format(amount) : amount + ' ' + currency; };
/** A POS order's amount is in minor units (cents): shown in the currency's units. */
const minorMoney = (amount, currency) => { const f = moneyFormat(currency); return f ? f.format(amount / 10 ** f.resolvedOptions().maximumFractionDigits) : amount + ' ' + currency + ' (minor units)'; };
/**
 * A time as the reader's local date and time, how long ago (or how soon) on
 * the account's clock, and the exact ISO time on hover; never wrapped
 * mid-date. The relative part follows the ticking clock (showClock).
 */
const when = (iso) => {
  const node = el('time', iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }) : '', { datetime: iso || '', title: iso || '' });
  if (iso) node.append(el('span', relativeTime(iso), { class: 'relative muted' }));
  return node;
};
const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
/** The account's now: the server's clock as last read, ticking here; the page's own before the first read. */
const accountNow = () => (state.clockBase ? state.clockBase.at + (Date.now() - state.clockBase.readAt) : Date.now());
/** ' (3 minutes ago)', ' (in 2 hours)': whole units, so it changes at most once a minute. */
function relativeTime(iso) {
  const seconds = (Date.parse(iso) - accountNow()) / 1000;
  if (Math.abs(seconds) < 60) return seconds <= 0 ? ' (less than a minute ago)' : ' (in less than a minute)';
  const [unit, size] = Math.abs(seconds) < 3600 ? ['minute', 60] : Math.abs(seconds) < 86400 ? ['hour', 3600] : ['day', 86400];
  return ' (' + RELATIVE.format(Math.trunc(seconds / size), unit) + ')';
}
/** Brings every relative time on the page up to the clock. */
function refreshRelativeTimes() {
  for (const node of document.querySelectorAll('time[datetime] .relative')) {
    const text = relativeTime(node.parentNode.getAttribute('datetime'));
    if (node.textContent !== text) node.textContent = text;
  }
}
/** What a forced outcome does, in words. */
const OUTCOME_LABELS = { paid: 'Force paid', failed: 'Force failed', expired: 'Force expired', accredited: 'Force accredited', accreditation_failed: 'Force the accreditation to fail' };
/** An id that opens what it names: the URL keeps it (#ses_…, #evt_…), so it can be shared and reloaded. */
const idLink = (id) => el('a', id, { href: '#' + id, class: 'id' });

const button = (text, onClick, attrs) => {
  const b = el('button', text, Object.assign({ type: 'button' }, attrs || {}));
  b.addEventListener('click', onClick);
  return b;
};
const cell = (content) => {
  const td = el('td');
  if (content instanceof Node) td.append(content); else td.textContent = content == null ? '' : String(content);
  return td;
};

class Stopped extends Error {}

async function api(path, options) {
  options = options || {};
  // Locked: nothing leaves the page, whatever was still on its way when the token went.
  if (state.locked || (options.apiToken && !state.keys)) throw new Stopped();
  const auth = options.apiToken ? state.keys.keys[0].token : state.token;
  const response = await fetch(path, Object.assign({}, options, { headers: Object.assign({ authorization: 'Bearer ' + auth }, options.json ? { 'content-type': 'application/json' } : {}), body: options.json ? JSON.stringify(options.json) : undefined }));
  const body = await response.json().catch(() => ({}));
  if (response.status === 401) {
    lock(TOKEN_GONE);
    throw new Stopped();
  }
  if (!response.ok) throw new Error(body.message || ('HTTP ' + response.status));
  return body;
}

/** The controls of the page, but for the two ways back in. */
const controls = () => [...document.querySelectorAll('button, input, select, textarea')].filter((c) => !c.closest('#login, #relogin'));

/**
 * The token went (a newer login, a 401): the page forgets every token and
 * secret it held, in memory and on screen, disables every control, and
 * offers to log in again here. Nothing is asked of the server until then.
 */
function lock(message) {
  state.locked = true;
  clearTimeout(state.timer);
  clearInterval(state.progressTimer);
  clearInterval(state.clockTimer);
  clearTimeout(state.pos.timer);
  state.pos = { terminalsPage: 1, ordersPage: 1, seen: null, timer: null };
  state.clockBase = null;
  state.timer = null;
  state.progressTimer = null;
  if (state.stream) state.stream.abort();
  state.stream = null;
  state.token = '';
  state.keys = null;
  state.session = null;
  state.event = null;
  state.verifyParts = null;
  sessionStorage.removeItem('console-token');
  $('token').value = '';
  $('verify-secret').value = '';
  $('keys').replaceChildren(el('p', 'Locked: log in again to see your keys.'));
  $('session-panel').hidden = true;
  closeDrawer();
  $('session-fields').replaceChildren();
  $('session-controls').replaceChildren();
  $('event-body').replaceChildren();
  $('pos').replaceChildren();
  $('live-bar').hidden = true;
  for (const control of controls()) control.disabled = true;
  $('error').textContent = message;
  $('relogin').hidden = false;
  $('relogin-email').focus();
}

function unlock() {
  state.locked = false;
  for (const control of controls()) control.disabled = false;
  $('relogin').hidden = true;
}

const report = (error) => { if (!(error instanceof Stopped)) $('error').textContent = error.message; };

// ---- the trace: rows added, never redrawn ----

const SUMMARY_FIELDS = ['session_id', 'event', 'receiver', 'routing', 'attempt', 'attempts', 'status', 'error', 'duration_ms', 'from', 'to', 'outcome', 'manual'];
const summary = (entry) => el('code', SUMMARY_FIELDS.filter((k) => k in entry).map((k) => k + '=' + entry[k]).join('  '), { class: 'summary' });

function traceRow(entry) {
  const tr = el('tr', undefined, { 'data-id': entry.id, 'data-type': entry.type });
  const actions = el('div', undefined, { class: 'bar' });
  actions.append(button('Details', (event) => showEvent(entry.id, event.target.closest('tr')), { 'aria-label': 'Details of ' + entry.type + ' ' + (entry.event_id || entry.id) }));
  if (entry.type === 'webhook.emitted') {
    actions.append(button('Resend', () => resend(entry.event_id), { 'aria-label': 'Resend ' + entry.event + ' ' + entry.event_id }));
    actions.append(el('span', state.resent.get(entry.event_id) || '', { role: 'status', 'data-resend': entry.event_id }));
  }
  const details = el('div');
  if (entry.type === 'webhook.attempt') details.append(statusBadge(entry), ' ');
  details.append(summary(entry));
  tr.append(cell(when(entry.at)), cell(entry.type), cell(details), cell(actions));
  return tr;
}

/** The trace's filters as a query; forStream leaves out what the stream cannot filter (the attempts' result, applied here). */
function traceQuery(forStream) {
  const params = new URLSearchParams();
  const result = $('trace-result').value;
  if (result && !forStream) { params.set('result', result); return params; }
  if (result) { params.set('type', 'webhook.attempt'); return params; }
  if ($('trace-type').value) params.set('type', $('trace-type').value);
  if ($('trace-session').value.trim()) params.set('session_id', $('trace-session').value.trim());
  return params;
}

/** Whether a live entry belongs in the trace as filtered (the stream cannot filter by an attempt's result). */
const wantedLive = (entry) => !$('trace-result').value || entry.result === $('trace-result').value;

async function loadTrace() {
  const params = traceQuery();
  params.set('limit', '100');
  const answer = await api('/console/trace?' + params);
  state.cursor = answer.cursor;
  const rows = answer.data.map((entry) => (state.entries.set(entry.id, entry), traceRow(entry)));
  $('trace').replaceChildren(...rows);
  const wanted = $('trace-search').value.trim();
  if (wanted) findEntry(wanted, answer.data);
}

/**
 * Opens the entry an id names, or the first whose id starts with it: an
 * event id opens the event as emitted (the entry that holds its body, with
 * every attempt under it), in a drawer under its row.
 */
function findEntry(wanted, entries) {
  const matches = (id) => typeof id === 'string' && id.startsWith(wanted);
  const found = entries.find((e) => e.type === 'webhook.emitted' && matches(e.event_id)) || entries.find((e) => matches(e.id) || matches(e.event_id));
  if (!found) { $('error').textContent = 'No entry starting with ' + wanted + ' among the newest 100 with these filters.'; return; }
  $('error').textContent = '';
  showEvent(found.id, $('trace').querySelector('tr[data-id="' + CSS.escape(found.id) + '"]'));
}

/** Puts new entries (newest first) on top of the trace, above what is there; nothing else moves. */
function addEntries(entries) {
  const body = $('trace');
  const first = body.firstChild;
  for (const entry of entries) {
    state.entries.set(entry.id, entry);
    const row = traceRow(entry);
    row.classList.add('new');
    body.insertBefore(row, first);
  }
  // The page keeps the newest 1,000 rows, and the entries behind them only (an open console runs for days).
  while (body.rows.length > 1000) {
    const id = body.lastChild.dataset.id;
    body.lastChild.remove();
    if (!document.querySelector('#session-events tr[data-id="' + CSS.escape(id) + '"]')) state.entries.delete(id);
  }
  $('trace-news').textContent = entries.length === 1 ? 'New event: ' + entries[0].type : entries.length + ' new events';
}

/** What new entries change elsewhere on the page. */
async function follow(entries) {
  if (entries.some((e) => e.type.startsWith('session.') || e.type === 'control.outcome' || e.type === 'control.reset')) await loadSessions();
  await loadProgress();
  if (state.session && entries.some((e) => e.session_id === state.session.session_id)) await openSession(state.session.session_id, { live: true });
  // The drawer open on an event follows its new attempts.
  const open = state.event;
  if (open && open.event_id && !$('event-panel').hidden && entries.some((e) => e.event_id === open.event_id)) {
    const drawer = $('event-drawer');
    await showEvent(open.id, drawer ? drawer.previousElementSibling : null, { live: true });
  }
}

// Entries that came while paused, shown on resume.
const held = [];

function receive(entries) {
  if (state.paused) { held.unshift(...entries); return; }
  addEntries(entries.filter(wantedLive));
  follow(entries).catch(report);
}

/**
 * The server pushes new entries (GET /console/trace/stream, read with fetch so
 * the token goes in a header); if the stream ends it is opened again from the
 * last cursor, so nothing is missed.
 */
async function stream() {
  const controller = new AbortController();
  state.stream = controller;
  const params = traceQuery(true);
  params.set('after', state.cursor);
  try {
    const response = await fetch('/console/trace/stream?' + params, { headers: { authorization: 'Bearer ' + state.token }, signal: controller.signal });
    if (response.status === 401) return lock(TOKEN_GONE);
    if (!response.ok) throw new Error('HTTP ' + response.status);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = (/^event: (.*)$/m.exec(frame) || [])[1];
        const data = (/^data: (.*)$/m.exec(frame) || [])[1];
        if (event === 'entries') {
          const answer = JSON.parse(data);
          state.cursor = answer.cursor;
          receive(answer.data);
        } else if (event === 'unauthorized') {
          return lock(TOKEN_GONE);
        }
      }
    }
  } catch (error) {
    if (controller.signal.aborted) return;
    $('error').textContent = 'Live updates interrupted (' + error.message + '); reconnecting…';
  }
  if (state.stream === controller && !controller.signal.aborted) state.timer = setTimeout(stream, 1000);
}

function restartStream() {
  if (state.stream) state.stream.abort();
  clearTimeout(state.timer);
  stream();
}

async function resend(eventId) {
  setResend(eventId, 'resending…');
  try {
    const result = await api('/console/webhooks/' + encodeURIComponent(eventId) + '/resend', { method: 'POST' });
    setResend(eventId, 'resent: ' + (result.status != null ? result.status : result.error) + ' (' + result.routing + ', ' + result.duration_ms + ' ms)');
  } catch (error) {
    if (!(error instanceof Stopped)) setResend(eventId, 'resend failed: ' + error.message);
  }
}
function setResend(eventId, text) {
  state.resent.set(eventId, text);
  for (const span of document.querySelectorAll('[data-resend]')) if (span.dataset.resend === eventId) span.textContent = text;
}

// ---- the event panel ----

const shellQuote = (text) => "'" + String(text).replace(/'/g, "'\\''") + "'";

function copyButton(label, text) {
  return button('Copy ' + label, async (event) => {
    try { await navigator.clipboard.writeText(text); event.target.textContent = 'Copied'; }
    catch { const area = el('textarea', text); document.body.append(area); area.select(); document.execCommand('copy'); area.remove(); event.target.textContent = 'Copied'; }
    setTimeout(() => (event.target.textContent = 'Copy ' + label), 1500);
  });
}

/** What was signed, and how, for an entry that carries a webhook: the body, its headers, the signature. */
function signedParts(entry) {
  if (!entry) return null;
  if (entry.type === 'webhook.emitted') return { body: entry.payload, timestamp: entry.at, signature: entry.signature, key: entry.idempotency_key };
  if (entry.type === 'webhook.received' && entry.headers) {
    const h = entry.headers;
    return { body: entry.raw_body, timestamp: h['svc-timestamp'], signature: h['svc-signature'], key: h['idempotency-key'] };
  }
  // An attempt carries the headers it sent; its body is its event's (the same bytes every attempt).
  if (entry.type === 'webhook.attempt' && entry.request_headers && entry.body !== undefined) {
    const h = entry.request_headers;
    return { body: entry.body, timestamp: h['svc-timestamp'], signature: h['svc-signature'], key: h['idempotency-key'] };
  }
  return null;
}

/** A status as a badge: colour and words, so 500 and 200 never look alike. */
function statusBadge(attempt) {
  const ok = typeof attempt.status === 'number' && attempt.status >= 200 && attempt.status < 300;
  const text = attempt.status != null ? attempt.status + (ok ? ' delivered' : ' failed') : 'no answer';
  return el('span', text, { class: 'badge ' + (ok ? 'ok' : 'bad') });
}

const curlFor = (url, parts) => 'curl -X POST ' + (url ? shellQuote(url) : 'YOUR_RECEIVER_URL') + ' -H ' + shellQuote('content-type: application/json') + ' -H ' + shellQuote('svc-signature: ' + parts.signature) + ' -H ' + shellQuote('svc-timestamp: ' + parts.timestamp) + ' -H ' + shellQuote('idempotency-key: ' + parts.key) + ' --data-binary ' + shellQuote(parts.body);

/** One attempt, whole: when, where, how it was routed, what was sent and what came back. */
function attemptBlock(a, body) {
  const box = el('div', undefined, { class: 'attempt', 'data-attempt': String(a.attempt) });
  const title = el('h4', 'Attempt ' + a.attempt + (a.manual ? ' (resent by hand)' : '') + ' ');
  title.append(statusBadge(a));
  box.append(title);
  const fields = el('dl');
  const add = (name, value) => {
    fields.append(el('dt', name));
    const dd = el('dd');
    if (Array.isArray(value)) dd.append(...value); else if (value instanceof Node) dd.append(value); else dd.textContent = String(value);
    fields.append(dd);
  };
  add('When', el('time', a.at, { datetime: a.at, title: a.at }));
  add('To', a.url || 'no webhook_url');
  add('Routing', a.routing);
  add('Took', a.duration_ms + ' ms');
  if (a.error) add('Why no answer', a.error);
  add('Answer', el('pre', a.response_body != null ? (a.response_body || '(empty)') : '(not kept: an attempt from before answers were kept)'));
  if (a.request_headers) {
    const headers = Object.entries(a.request_headers).map(([k, v]) => k + ': ' + v).join('\n');
    add('Request headers', el('pre', headers));
    if (body !== undefined) {
      const curl = curlFor(a.url, { body: body, signature: a.request_headers['svc-signature'], timestamp: a.request_headers['svc-timestamp'], key: a.request_headers['idempotency-key'] });
      add('Replay', [el('pre', curl), copyButton('curl of attempt ' + a.attempt, curl)]);
    }
  }
  box.append(fields);
  return box;
}

/** The drawer: the event panel, moved into a row just under the row it details. */
function openDrawer(row) {
  const panel = $('event-panel');
  if (!row) { $('event-home').append(panel); return; }
  let drawer = $('event-drawer');
  if (!drawer) {
    drawer = el('tr', undefined, { id: 'event-drawer', class: 'drawer' });
    drawer.append(el('td', undefined, { colspan: '4' }));
  }
  row.after(drawer);
  drawer.firstChild.append(panel);
}

function closeDrawer() {
  $('event-panel').hidden = true;
  $('event-home').append($('event-panel'));
  const drawer = $('event-drawer');
  if (drawer) drawer.remove();
}

async function showEvent(id, row, how) {
  const entry = state.entries.get(id);
  if (!entry) return;
  const box = $('event-body');
  box.replaceChildren();
  $('event-title').textContent = entry.type + ' at ' + entry.at;
  // The event's attempts and its signed body, whichever of its entries was opened.
  let attempts = [];
  let emitted = entry.type === 'webhook.emitted' ? entry : null;
  if (entry.event_id) {
    const params = 'limit=1000' + (entry.session_id ? '&session_id=' + encodeURIComponent(entry.session_id) : '');
    const related = await api('/console/trace?type=webhook.attempt&' + params).catch(() => ({ data: [] }));
    attempts = related.data.filter((a) => a.event_id === entry.event_id).reverse();
    if (!emitted) {
      const found = await api('/console/trace?type=webhook.emitted&' + params).catch(() => ({ data: [] }));
      emitted = found.data.find((e) => e.event_id === entry.event_id) || null;
    }
  }
  const body = emitted ? emitted.payload : undefined;
  state.event = entry.type === 'webhook.attempt' ? Object.assign({}, entry, { body: body }) : entry;
  const parts = signedParts(state.event) || signedParts(emitted);
  if (entry.event_id) {
    box.append(el('h3', 'Attempts'));
    if (attempts.length === 0) box.append(el('p', 'None yet.'));
    // Newest first: the one that explains the current state is on top.
    for (const a of attempts.slice().reverse()) box.append(attemptBlock(a, body));
    const last = attempts[attempts.length - 1];
    const form = el('form', undefined, { class: 'bar', id: 'drawer-resend' });
    const input = el('input', undefined, { id: 'drawer-resend-url', type: 'url', size: '40', value: (last && last.url) || (state.session && state.session.webhook_url) || '' });
    // What the last resend of this event got stays said when the drawer is drawn again (a live update).
    const result = el('span', state.resent.get('drawer:' + entry.event_id) || '', { role: 'status', id: 'drawer-resend-result' });
    form.append(el('label', 'Resend to', { for: 'drawer-resend-url' }), input, el('button', 'Resend', { type: 'submit' }), result);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      result.textContent = 'resending…';
      try {
        const url = input.value.trim();
        const answer = await api('/console/webhooks/' + encodeURIComponent(entry.event_id) + '/resend', Object.assign({ method: 'POST' }, url && url !== (last && last.url) ? { json: { url: url } } : {}));
        const drawer = $('event-drawer');
        state.resent.set('drawer:' + entry.event_id, 'Attempt ' + answer.attempt + ' to ' + answer.url + ': ' + (answer.status != null ? answer.status : answer.error) + ' (' + answer.routing + ', ' + answer.duration_ms + ' ms)');
        await showEvent(id, drawer ? drawer.previousElementSibling : null, { live: true });
      } catch (error) { if (!(error instanceof Stopped)) result.textContent = 'Resend failed: ' + error.message; }
    });
    box.append(el('h3', 'Resend'), form);
  }
  if (parts) {
    let pretty = parts.body;
    try { pretty = JSON.stringify(JSON.parse(parts.body), null, 2); } catch {}
    const headers = 'content-type: application/json\nsvc-signature: ' + parts.signature + '\nsvc-timestamp: ' + parts.timestamp + '\nidempotency-key: ' + parts.key;
    const curl = curlFor(null, parts);
    box.append(el('h3', 'Headers'), el('pre', headers), copyButton('headers', headers));
    box.append(el('h3', 'Payload'), el('pre', pretty), copyButton('raw body', parts.body));
    box.append(el('h3', 'Signature'), el('pre', parts.signature), copyButton('signature', parts.signature));
    box.append(el('h3', 'Replay it to your receiver'), el('pre', curl), copyButton('curl', curl));
  }
  box.append(el('h3', 'Everything recorded'), el('pre', JSON.stringify(entry, null, 2)));
  $('verify').hidden = !parts;
  state.verifyParts = parts;
  $('verify-result').textContent = '';
  openDrawer(row || null);
  $('event-panel').hidden = false;
  if (!(how && how.live)) $('event-title').focus();
}

async function hmacHex(secret, text) {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(text)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('');
}

$('event-close').addEventListener('click', closeDrawer);
$('resend-failed').addEventListener('click', () => resendFailed(null));
$('verify').addEventListener('submit', async (event) => {
  event.preventDefault();
  const parts = state.verifyParts;
  const expected = await hmacHex($('verify-secret').value.trim(), parts.timestamp + '.' + parts.body);
  const ok = expected === parts.signature;
  $('verify-result').textContent = ok ? '✓ The signature matches this secret.' : '✗ It does not match: another secret, or the body was changed.';
  $('verify-result').className = ok ? 'ok' : 'bad';
});

// ---- sessions: a page at a time, rows updated in place ----

/** A state as a colour-and-text badge: good (paid, accredited), bad (failed, expired), or waiting. */
const STATE_TONES = { paid: 'ok', accredited: 'ok', failed: 'bad', expired: 'bad', pending: 'wait', scheduled: 'wait', none: 'wait' };
const stateBadge = (state) => el('span', state, { class: 'badge ' + (STATE_TONES[state] || 'wait') });

function sessionCells(s) {
  return [idLink(s.session_id), stateBadge(s.status), money(s.amount_reference, s.currency_reference), stateBadge(s.accreditation.status), when(s.created_at)];
}

function renderSessions(sessions) {
  const body = $('sessions');
  const wanted = new Set(sessions.map((s) => s.session_id));
  for (const row of Array.from(body.rows)) if (!wanted.has(row.dataset.id)) row.remove();
  let before = body.firstChild;
  for (const s of sessions) {
    let row = body.querySelector('tr[data-id="' + CSS.escape(s.session_id) + '"]');
    const cells = sessionCells(s);
    if (!row) {
      row = el('tr', undefined, { 'data-id': s.session_id });
      for (const value of cells) row.append(cell(value));
      row.append(cell(button('Open', () => openSession(s.session_id), { 'aria-label': 'Open session ' + s.session_id })));
      body.insertBefore(row, before);
    } else {
      cells.forEach((value, i) => {
        const text = value instanceof Node ? value.textContent : String(value);
        if (row.cells[i].textContent !== text) row.cells[i].replaceChildren(value instanceof Node ? value : text);
      });
    }
    before = row.nextSibling;
  }
}

async function loadSessions() {
  const params = new URLSearchParams({ limit: String(SESSIONS_PER_PAGE), page: String(state.sessionsPage) });
  const prefix = $('session-find').value.trim();
  if (prefix) params.set('id_prefix', prefix);
  else {
    if ($('session-status').value) params.set('status', $('session-status').value);
    if ($('session-accreditation').value) params.set('accreditation', $('session-accreditation').value);
  }
  const answer = await api('/console/sessions?' + params);
  renderSessions(answer.data);
  $('sessions-page').textContent = 'page ' + state.sessionsPage;
  $('sessions-prev').disabled = state.sessionsPage === 1;
  $('sessions-next').disabled = answer.data.length < SESSIONS_PER_PAGE;
  return answer.data;
}

const OUTCOMES = { 1: ['paid', 'failed', 'expired'], 2: ['accredited', 'accreditation_failed'] };
/** The forced outcomes the rules admit now (addendum §6): leg 1 while pending, leg 2 once paid and not yet ended. */
const admissible = (s) => s.status === 'pending' ? [1] : s.status === 'paid' && (s.accreditation.status === 'none' || s.accreditation.status === 'scheduled') ? [2] : [];

async function openSession(id, how) {
  try {
    const s = await api('/payment-sessions/' + encodeURIComponent(id), { apiToken: true });
    state.session = s;
    $('session-title').textContent = 'Session ' + s.session_id;
    const fields = $('session-fields');
    fields.replaceChildren();
    const add = (name, value) => { if (value === undefined || value === null) return; fields.append(el('dt', name)); const dd = el('dd'); if (value instanceof Node) dd.append(value); else dd.textContent = String(value); fields.append(dd); };
    add('Status', s.status);
    add('Amount', money(s.amount_reference, s.currency_reference));
    add('Accreditation', s.accreditation.status + (s.accreditation.scheduled_for ? ', scheduled for ' + s.accreditation.scheduled_for : ''));
    add('Due date', s.due_date_session ? s.due_date_session + ' (' + s.due_date_reached_behavior + ')' : 'none');
    add('Pay link', el('a', s.pay_url, { href: s.pay_url }));
    add('Webhook URL', s.webhook_url || 'none');
    const payment = s.session_payment || {};
    if (payment.receiver_credits_summary) add('Credits', 'gross ' + payment.receiver_credits_summary.gross_amount + ', commissions ' + payment.receiver_credits_summary.commissions + ', net ' + payment.receiver_credits_summary.net_amount + ' (' + payment.receiver_credits_summary.total_credits + ' credit(s))');
    for (const credit of payment.receiver_credits || []) add('Credit', JSON.stringify(credit));
    if (s.failure_reason) add('Failure', s.failure_reason);
    const controls = $('session-controls');
    controls.replaceChildren();
    const legs = admissible(s);
    for (const leg of legs) for (const outcome of OUTCOMES[leg]) controls.append(button(OUTCOME_LABELS[outcome] || 'Force ' + outcome, () => force(s.session_id, leg, outcome)));
    if (legs.length === 0) controls.append(el('span', 'No forced outcome is admissible now: the session has ended.', { class: 'muted' }));
    const events = await api('/console/trace?limit=200&session_id=' + encodeURIComponent(s.session_id));
    const failed = failedEvents(events.data);
    if (failed.length > 0) controls.append(button('Resend the ' + failed.length + ' failed event(s)', () => resendFailed(s.session_id)));
    // A drawer open under one of these rows stays under it when they are drawn again.
    const drawer = $('event-drawer');
    const anchor = drawer && drawer.parentNode === $('session-events') && drawer.previousElementSibling ? drawer.previousElementSibling.dataset.id : null;
    $('session-events').replaceChildren(...events.data.map((entry) => (state.entries.set(entry.id, entry), traceRow(entry))));
    if (anchor) {
      const row = $('session-events').querySelector('tr[data-id="' + CSS.escape(anchor) + '"]');
      if (row) row.after(drawer); else closeDrawer();
    }
    $('session-panel').hidden = false;
    // A live update redraws in place; only the operator's own opening moves the focus.
    if (!(how && how.live)) $('session-title').focus();
  } catch (error) { report(error); }
}

/** The session's events the server's resend-failed takes: given up or undelivered, and not delivered by an attempt since. */
function failedEvents(entries) {
  const delivered = new Set(entries.filter((e) => e.type === 'webhook.attempt' && e.result === 'succeeded').map((e) => e.event_id));
  const ended = entries.filter((e) => (e.type === 'webhook.gave_up' || e.type === 'webhook.undelivered') && !delivered.has(e.event_id));
  return [...new Set(ended.map((e) => e.event_id))];
}

/** Resends the failed events of a session, or of the account (no session): the server finds them, 10 at a time. */
async function resendFailed(sessionId) {
  const where = sessionId ? $('session-result') : $('resend-failed-result');
  try {
    const answer = await api('/console/webhooks/resend-failed', Object.assign({ method: 'POST' }, sessionId ? { json: { session_id: sessionId } } : {}));
    const delivered = answer.resent.filter((r) => typeof r.status === 'number' && r.status >= 200 && r.status < 300).length;
    if (sessionId) await openSession(sessionId);
    where.textContent = answer.resent.length === 0 ? 'No failed event to resend.' : 'Resent ' + answer.resent.length + ' failed event(s): ' + delivered + ' delivered now' + (answer.more ? '; more are left: press again.' : '.');
  } catch (error) { if (!(error instanceof Stopped)) where.textContent = 'Resend failed: ' + error.message; }
}

async function force(id, leg, outcome) {
  try {
    await api('/control/sessions/' + encodeURIComponent(id) + '/outcome', { method: 'POST', json: { leg: leg, outcome: outcome }, apiToken: true });
    await openSession(id);
    $('session-result').textContent = 'Done: ' + (OUTCOME_LABELS[outcome] || outcome).replace(/^Force /, '') + '.';
  } catch (error) { $('session-result').textContent = error instanceof Stopped ? '' : 'Refused: ' + error.message; }
}

// ---- progress, keys, clock, POS ----

async function loadProgress() {
  const progress = await api('/console/progress');
  const list = $('progress');
  progress.steps.forEach((step, i) => {
    const text = (step.done ? '✓ ' : '○ ') + step.title + (step.done ? '' : ' (to do)');
    let item = list.children[i];
    if (!item) { item = el('li'); list.append(item); }
    if (item.textContent !== text) { item.textContent = text; item.className = step.done ? 'done' : 'todo'; }
  });
}

/** A secret shown masked (its kind and last 4 characters), with a button that reveals it and one that copies it. */
function secretField(label, secret) {
  const masked = secret.slice(0, secret.indexOf('_') + 1) + '•'.repeat(12) + secret.slice(-4);
  const shown = el('pre', masked, { 'data-secret': label });
  const reveal = button('Reveal ' + label, () => {
    const revealed = reveal.getAttribute('aria-pressed') !== 'true';
    shown.textContent = revealed ? secret : masked;
    reveal.setAttribute('aria-pressed', String(revealed));
    reveal.textContent = (revealed ? 'Hide ' : 'Reveal ') + label;
  }, { 'aria-pressed': 'false' });
  const box = el('div', undefined, { class: 'bar' });
  box.append(reveal, copyButton(label, secret));
  return [el('p', label[0].toUpperCase() + label.slice(1)), shown, box];
}

function showKeys(keys) {
  const box = el('div');
  for (const key of keys.keys) box.append(...secretField('API token', key.token), ...secretField('webhook secret', key.webhook_secret));
  box.append(el('p', 'Default receivers'));
  for (const [name, url] of Object.entries(keys.hooks)) box.append(el('pre', name + ': ' + url));
  $('keys').replaceChildren(box);
}

/** The account's clock, read once from the server and then ticking here each second (no request per tick). */
async function loadClock() {
  const clock = await api('/control/clock', { apiToken: true });
  state.clockBase = { at: Date.parse(clock.now), readAt: Date.now(), offset: clock.offset_ms };
  showClock();
  clearInterval(state.clockTimer);
  state.clockTimer = setInterval(showClock, 1000);
}

function showClock() {
  const base = state.clockBase;
  if (!base) return;
  const now = new Date(base.at + (Date.now() - base.readAt)).toISOString();
  $('clock').textContent = now.slice(0, 19).replace('T', ' ') + ' UTC' + (base.offset ? ' (ahead by ' + Math.round(base.offset / 1000) + ' s)' : '');
  $('clock').title = now;
  refreshRelativeTimes();
}

for (const b of document.querySelectorAll('[data-advance]')) {
  b.addEventListener('click', async () => {
    try {
      await api('/control/clock/advance', { method: 'POST', json: { ms: Number(b.dataset.advance) }, apiToken: true });
      await loadClock();
      $('clock-result').textContent = 'Clock moved ' + b.textContent + '.';
    } catch (error) { report(error); }
  });
}

const DUE_WORDS = { webhook_attempt: 'the next webhook attempt', accreditation: 'the scheduled accreditation' };
$('advance-next').addEventListener('click', async () => {
  try {
    const due = await api('/control/clock/next', { apiToken: true });
    if (!due.next) { $('clock-result').textContent = 'Nothing is due: no webhook retry or accreditation waits.'; return; }
    await api('/control/clock/advance', { method: 'POST', json: { ms: Math.max(1, due.next.in_ms) }, apiToken: true });
    await loadClock();
    $('clock-result').textContent = 'Clock moved ' + Math.round(due.next.in_ms / 1000) + ' s, to ' + DUE_WORDS[due.next.kind] + ' of ' + due.next.session_id + '.';
  } catch (error) { report(error); }
});

function table(caption, head, rows) {
  const wrap = el('div', undefined, { class: 'scroll', role: 'region', 'aria-label': caption, tabindex: '0' });
  const t = el('table');
  t.append(el('caption', caption));
  const tr = el('tr');
  for (const h of head) tr.append(el('th', h, { scope: 'col' }));
  const thead = el('thead'); thead.append(tr);
  const tbody = el('tbody');
  for (const r of rows) { const row = el('tr'); for (const v of r) row.append(cell(v)); tbody.append(row); }
  t.append(thead, tbody);
  wrap.append(t);
  return wrap;
}

const POS_TERMINALS_PER_PAGE = 10;
const POS_ORDERS_PER_PAGE = 20;

/**
 * The POS side, a page of terminals (with each one's latest settlements) and
 * a page of orders at a time. Once shown it follows the server every 5 s,
 * and draws again only when something changed, so focus and scroll stay.
 */
async function loadPos() {
  if (state.locked || !state.keys) return;
  try {
    const base = '/api/v1/merchants/' + encodeURIComponent(state.keys.merchant_id);
    const pos = state.pos;
    const terminals = await api(base + '/pos-terminals', { apiToken: true });
    const orders = await api(base + '/transactions?size=' + POS_ORDERS_PER_PAGE + '&page=' + pos.ordersPage, { apiToken: true });
    const pageOfTerminals = terminals.data.slice((pos.terminalsPage - 1) * POS_TERMINALS_PER_PAGE, pos.terminalsPage * POS_TERMINALS_PER_PAGE);
    const settlements = [];
    for (const t of pageOfTerminals) settlements.push({ serial: t.serialNumber, data: (await api(base + '/pos-terminals/' + encodeURIComponent(t.serialNumber) + '/settlements?sort=-closedAt&size=10', { apiToken: true })).data });
    const seen = JSON.stringify([terminals.data, orders.data, settlements, pos.terminalsPage, pos.ordersPage]);
    if (seen !== pos.seen) {
      pos.seen = seen;
      const pages = Math.max(1, Math.ceil(terminals.data.length / POS_TERMINALS_PER_PAGE));
      const pager = (label, page, last, move) => {
        const bar = el('div', undefined, { class: 'bar' });
        const back = button('Previous ' + label, () => move(-1));
        const next = button('Next ' + label, () => move(1));
        back.disabled = page === 1;
        next.disabled = last;
        bar.append(back, el('span', label + ', page ' + page), next);
        return bar;
      };
      const movePos = (key) => (step) => { pos[key] = Math.max(1, pos[key] + step); loadPos(); };
      const history = (o) => (o.history || []).map((h) => h.from + '→' + h.to + ' ' + h.at).join('; ');
      const parts = [
        table('Terminals (' + terminals.data.length + ')', ['Serial', 'Created'], pageOfTerminals.map((t) => [t.serialNumber, when(t.createdAt)])),
        pager('terminals', pos.terminalsPage, pos.terminalsPage >= pages, movePos('terminalsPage')),
        table('Orders, newest first', ['Order', 'Terminal', 'Amount', 'Status', 'History'], orders.data.map((o) => [o.orderId, o.terminal, minorMoney(o.amount, o.currency), o.status, history(o)])),
        pager('orders', pos.ordersPage, orders.data.length < POS_ORDERS_PER_PAGE, movePos('ordersPage')),
      ];
      for (const each of settlements) parts.push(table('Settlements of ' + each.serial + ', latest first (10)', ['Batch', 'Transactions', 'Closed', 'Debit batch'], each.data.map((x) => [x.batchNumber, x.transactionCount, when(x.closedAt), x.debitBatch])));
      $('pos').replaceChildren(...parts);
    }
    $('pos-result').textContent = terminals.data.length + ' terminal(s); orders page ' + pos.ordersPage + '. Updated live.';
    clearTimeout(pos.timer);
    pos.timer = setTimeout(loadPos, 5000);
  } catch (error) { report(error); }
}
$('pos-load').addEventListener('click', loadPos);

// ---- opening ----

async function open() {
  $('error').textContent = '';
  try {
    state.keys = await api('/console/keys');
    sessionStorage.setItem('console-token', state.token);
    showKeys(state.keys);
    await Promise.all([loadProgress(), loadSessions(), loadTrace(), loadClock()]);
    $('live-bar').hidden = false;
    restartStream();
    // The progress also follows agreements, which the trace does not record: asked for now and then.
    clearInterval(state.progressTimer);
    state.progressTimer = setInterval(() => loadProgress().catch(report), 30000);
    await followHash();
  } catch (error) { report(error); }
}

for (const type of TRACE_TYPES) $('trace-type').append(el('option', type));
$('pause').addEventListener('click', () => {
  state.paused = !state.paused;
  $('pause').setAttribute('aria-pressed', String(state.paused));
  $('pause').textContent = state.paused ? 'Resume live updates' : 'Pause live updates';
  $('live-state').textContent = state.paused ? 'Paused: nothing changes until you resume.' : 'Live: new events appear as they happen.';
  if (!state.paused && held.length > 0) receive(held.splice(0));
});
$('trace-filter').addEventListener('submit', (event) => { event.preventDefault(); held.length = 0; loadTrace().then(restartStream, report); });
$('session-filter').addEventListener('submit', (event) => {
  event.preventDefault();
  state.sessionsPage = 1;
  $('sessions').replaceChildren();
  const prefix = $('session-find').value.trim();
  $('error').textContent = '';
  loadSessions().then((found) => {
    if (!prefix) return;
    // The start of an id: one session found opens; none says so; several stay listed to choose from.
    if (found.length === 0) $('error').textContent = 'No session starting with ' + prefix + '.';
    else if (found.length === 1) openSession(found[0].session_id);
  }, report);
});
$('sessions-prev').addEventListener('click', () => { state.sessionsPage = Math.max(1, state.sessionsPage - 1); $('sessions').replaceChildren(); loadSessions().catch(report); });
$('sessions-next').addEventListener('click', () => { state.sessionsPage += 1; $('sessions').replaceChildren(); loadSessions().catch(report); });
$('login').addEventListener('submit', (event) => {
  event.preventDefault();
  state.token = $('token').value.trim();
  unlock();
  open();
});
$('relogin').addEventListener('submit', async (event) => {
  event.preventDefault();
  const password = $('relogin-password');
  try {
    const response = await fetch('/api/svcpagos/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: $('relogin-email').value.trim(), password: password.value }) });
    const body = await response.json().catch(() => ({}));
    password.value = '';
    if (!response.ok) { $('relogin-result').textContent = 'Not logged in: ' + (body.message || ('HTTP ' + response.status)); return; }
    $('relogin-result').textContent = '';
    state.token = body.console_token;
    unlock();
    await open();
  } catch (error) { $('relogin-result').textContent = 'Not logged in: ' + error.message; }
});
/** The URL's #id opens what it names, once the console is open: a session, or a trace entry or event. */
async function followHash() {
  const id = decodeURIComponent(location.hash.slice(1));
  if (!id || state.locked || !state.keys) return;
  if (id.startsWith('ses_')) return openSession(id);
  const answer = await api('/console/trace?limit=1000').catch(() => ({ data: [] }));
  for (const entry of answer.data) state.entries.set(entry.id, entry);
  findEntry(id, answer.data);
}
window.addEventListener('hashchange', () => followHash().catch(report));

if (state.token) {
  $('token').value = state.token;
  open();
}
`;
