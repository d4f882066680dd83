import { api, report, whenUnauthorized } from './api.js';
import { closeDrawer, wireDrawer } from './drawer.js';
import { $, el, field } from './dom.js';
import { loadClock, loadProgress, showKeys, wireClock } from './keys-clock.js';
import { loadPos } from './pos.js';
import { loadRelay } from './relay.js';
import { loadScenarios, showRun, stopScenarios, wireScenarios } from './scenarios.js';
import { loadSessions, openSession, resendFailed, showResendFailed } from './sessions.js';
import { wireCredentialForm } from './credential-form.js';
import { newPosView, state } from './state.js';
import { findEntry, held, loadTrace, receive, restartStream, TRACE_TYPES } from './trace.js';
import type { Keys, TraceEntry } from './types.js';

// The console's script (served as /console/app.js, one module built from
// these): it opens with the console token pasted into it, then keeps the
// page live. Every rule it shows (which forced outcomes a session admits,
// what counts as done) comes from the server's answers.

/** The controls of the page, but for the two ways in. */
const controls = () =>
  [...document.querySelectorAll<HTMLInputElement | HTMLButtonElement>('button, input, select, textarea')].filter(
    (control) => !control.closest('#sign-in'),
  );

/** Before the console is open, only the ways in work: a button that could do nothing is not offered. */
function waitForSignIn(): void {
  for (const control of controls()) control.disabled = true;
  $('sign-in').hidden = false;
  showLoginHints();
}

/** Each panel, empty while nobody is signed in, says so and where to sign in, instead of looking like an account with nothing. */
function showLoginHints(): void {
  const hint = (what: string) => `Log in above (or paste the console token, or register) to see ${what}.`;
  $('keys').replaceChildren(el('p', hint("this account's keys"), { class: 'muted' }));
  $('progress').replaceChildren(el('li', hint('the integration checklist'), { class: 'muted' }));
  $('relay-state').replaceChildren(el('p', hint('the relay'), { class: 'muted' }));
  $('scenario-about').replaceChildren(el('p', hint('the scenarios you can run'), { class: 'muted' }));
  for (const [id, what] of [
    ['sessions', 'the payment sessions'],
    ['trace', 'the live trace'],
  ] as const) {
    const row = el('tr');
    row.append(el('td', hint(what), { colspan: '12', class: 'muted' }));
    $(id).replaceChildren(row);
  }
}

/**
 * The token went (a newer login, a 401): the page forgets every token and
 * secret it held, in memory and on screen, disables every control, and
 * offers to log in again here. Nothing is asked of the server until then.
 */
function lock(message: string): void {
  state.locked = true;
  for (const timer of [state.timer, state.pos.timer]) if (timer) clearTimeout(timer);
  for (const timer of [state.progressTimer, state.clockTimer]) if (timer) clearInterval(timer);
  state.stream?.abort();
  stopScenarios();
  Object.assign(state, {
    pos: newPosView(),
    clockBase: null,
    timer: null,
    progressTimer: null,
    stream: null,
    token: '',
    keys: null,
    session: null,
    event: null,
    verifyParts: null,
  });
  sessionStorage.removeItem('console-token');
  field('token').value = '';
  field('verify-secret').value = '';
  showLoginHints();
  $('keys').replaceChildren(el('p', 'Locked: log in again to see your keys.'));
  $('session-panel').hidden = true;
  closeDrawer();
  for (const id of ['session-fields', 'session-controls', 'event-body', 'pos', 'relay-state', 'scenario-steps'])
    $(id).replaceChildren();
  $('live-bar').hidden = true;
  for (const control of controls()) control.disabled = true;
  $('error').textContent = message;
  $('sign-in').hidden = false;
  $('relogin-submit').textContent = 'Log in again';
  $('relogin-email').focus();
}

/** The console is open: every control works, and the ways in (one holding the token) leave the screen. */
function signedIn(): void {
  for (const control of controls()) control.disabled = false;
  field('token').value = '';
  $('sign-in').hidden = true;
}

async function open(): Promise<void> {
  $('error').textContent = '';
  state.locked = false;
  try {
    state.keys = await api<Keys>('/console/keys');
    sessionStorage.setItem('console-token', state.token);
    signedIn();
    showKeys(state.keys);
    await Promise.all([
      loadProgress(),
      loadSessions(),
      loadTrace(),
      loadClock(),
      showResendFailed(),
      loadRelay(),
      loadScenarios(),
    ]);
    $('live-bar').hidden = false;
    restartStream();
    // The progress also follows agreements, which the trace does not record: asked for now and then.
    if (state.progressTimer) clearInterval(state.progressTimer);
    state.progressTimer = setInterval(() => loadProgress().catch(report), 30000);
    await followHash();
  } catch (error) {
    report(error);
  }
}

/** The URL's #id opens what it names, once the console is open: a session, or a trace entry or event. */
async function followHash(): Promise<void> {
  const id = decodeURIComponent(location.hash.slice(1));
  if (!id || state.locked || !state.keys) return;
  if (id.startsWith('ses_')) return openSession(id);
  if (id.startsWith('run_')) return showRun(id);
  const answer = await api<{ data: TraceEntry[] }>('/console/trace?limit=1000').catch(() => ({
    data: [] as TraceEntry[],
  }));
  for (const entry of answer.data) state.entries.set(entry.id, entry);
  findEntry(id, answer.data);
}

function wireLiveBar(): void {
  $('pause').addEventListener('click', () => {
    state.paused = !state.paused;
    $('pause').setAttribute('aria-pressed', String(state.paused));
    $('pause').textContent = state.paused ? 'Resume live updates' : 'Pause live updates';
    $('live-state').textContent = state.paused
      ? 'Paused: nothing changes until you resume.'
      : 'Live: new events appear as they happen.';
    if (!state.paused && held.length > 0) receive(held.splice(0));
  });
}

function wireFilters(): void {
  for (const type of TRACE_TYPES) $('trace-type').append(el('option', type));
  $('trace-filter').addEventListener('submit', (event) => {
    event.preventDefault();
    held.length = 0;
    loadTrace().then(restartStream, report);
  });
  $('resend-failed').addEventListener('click', () => void resendFailed(null));
  $('session-filter').addEventListener('submit', (event) => {
    event.preventDefault();
    state.sessionsPage = 1;
    $('sessions').replaceChildren();
    const prefix = field('session-find').value.trim();
    $('error').textContent = '';
    loadSessions().then((found) => {
      if (!prefix) return;
      // The start of an id: one session found opens; none says so; several stay listed to choose from.
      if (found.length === 0) $('error').textContent = `No session starting with ${prefix}.`;
      else if (found.length === 1) void openSession(found[0]!.session_id);
    }, report);
  });
  const page = (step: number) => () => {
    state.sessionsPage = Math.max(1, state.sessionsPage + step);
    $('sessions').replaceChildren();
    loadSessions().catch(report);
  };
  $('sessions-prev').addEventListener('click', page(-1));
  $('sessions-next').addEventListener('click', page(1));
  $('pos-load').addEventListener('click', () => void loadPos());
}

function wireLogin(): void {
  $('login').addEventListener('submit', (event) => {
    event.preventDefault();
    state.token = field('token').value.trim();
    void open();
  });
}

whenUnauthorized(lock);
wireDrawer();
wireClock();
wireLiveBar();
wireFilters();
wireLogin();
const openWith = async (consoleToken: string) => {
  state.token = consoleToken;
  await open();
};
wireCredentialForm({ id: 'relogin', path: '/api/svcpagos/login', failure: 'Not logged in' }, openWith);
wireCredentialForm({ id: 'register', path: '/console/register', failure: 'Not registered' }, openWith);
wireScenarios();
window.addEventListener('hashchange', () => followHash().catch(report));
$('sign-out').addEventListener('click', () => {
  sessionStorage.removeItem('console-token');
  location.replace('/console');
});
waitForSignIn();
if (state.token) void open();
else $('relogin-email').focus();
