import { api, report, tokenGone } from './api.js';
import { drawerRow, showEvent } from './drawer.js';
import { $, field } from './dom.js';
import { loadProgress } from './keys-clock.js';
import { loadRelay } from './relay.js';
import { loadSessions, openSession, showResendFailed } from './sessions.js';
import { state } from './state.js';
import { traceRow } from './trace-rows.js';
import type { TraceEntry } from './types.js';

// The trace: loaded once, then kept live by the server's stream; rows are
// added, never redrawn, so a selection, the focus and the scroll position
// survive. What the new entries change elsewhere (sessions, progress, an
// open session or event) follows them.

export const TRACE_TYPES = [
  'session.created',
  'session.status_changed',
  'webhook.emitted',
  'webhook.attempt',
  'webhook.gave_up',
  'webhook.undelivered',
  'webhook.received',
  'control.outcome',
  'control.reset',
  'relay.connected',
  'relay.closed',
  'relay.resumed',
];

/** The trace's filters as a query; forStream leaves out what the stream cannot filter (the attempts' result, applied here). */
function traceQuery(forStream = false): URLSearchParams {
  const params = new URLSearchParams();
  const result = field('trace-result').value;
  if (result && !forStream) params.set('result', result);
  else if (result) params.set('type', 'webhook.attempt');
  else {
    if (field('trace-type').value) params.set('type', field('trace-type').value);
    if (field('trace-session').value.trim()) params.set('session_id', field('trace-session').value.trim());
  }
  return params;
}

/** Whether a live entry belongs in the trace as filtered (the stream cannot filter by an attempt's result). */
const wantedLive = (entry: TraceEntry) => !field('trace-result').value || entry.result === field('trace-result').value;

export async function loadTrace(): Promise<void> {
  const params = traceQuery();
  params.set('limit', '100');
  const answer = await api<{ data: TraceEntry[]; cursor: string }>(`/console/trace?${params}`);
  state.cursor = answer.cursor;
  $('trace').replaceChildren(...answer.data.map((entry) => (state.entries.set(entry.id, entry), traceRow(entry))));
  const wanted = field('trace-search').value.trim();
  if (wanted) findEntry(wanted, answer.data);
}

/**
 * Opens the entry an id names, or the first whose id starts with it: an
 * event id opens the event as emitted (the entry that holds its body, with
 * every attempt under it), in a drawer under its row.
 */
export function findEntry(wanted: string, entries: TraceEntry[]): void {
  const matches = (id: unknown) => typeof id === 'string' && id.startsWith(wanted);
  const found =
    entries.find((entry) => entry.type === 'webhook.emitted' && matches(entry.event_id)) ??
    entries.find((entry) => matches(entry.id) || matches(entry.event_id));
  if (!found)
    return void ($('error').textContent = `No entry starting with ${wanted} among the newest 100 with these filters.`);
  $('error').textContent = '';
  void showEvent(found.id, $('trace').querySelector(`tr[data-id="${CSS.escape(found.id)}"]`));
}

/** Puts new entries (newest first) on top of the trace, above what is there; nothing else moves. */
function addEntries(entries: TraceEntry[]): void {
  const body = $<HTMLTableSectionElement>('trace');
  const first = body.firstChild;
  for (const entry of entries) {
    state.entries.set(entry.id, entry);
    const row = traceRow(entry);
    row.classList.add('new');
    body.insertBefore(row, first);
  }
  // The page keeps the newest 1,000 rows, and the entries behind them only (an open console runs for days).
  while (body.rows.length > 1000) {
    const last = body.lastElementChild as HTMLElement;
    const id = last.dataset.id!;
    last.remove();
    if (!document.querySelector(`#session-events tr[data-id="${CSS.escape(id)}"]`)) state.entries.delete(id);
  }
  $('trace-news').textContent =
    entries.length === 1 ? `New event: ${entries[0]!.type}` : `${entries.length} new events`;
}

/** What new entries change elsewhere on the page. */
async function follow(entries: TraceEntry[]): Promise<void> {
  if (
    entries.some(
      (entry) =>
        entry.type.startsWith('session.') || entry.type === 'control.outcome' || entry.type === 'control.reset',
    )
  )
    await loadSessions();
  await loadProgress();
  // A delivery given up, or one delivered at last, may change what a resend of the failed would take.
  if (
    entries.some(
      (entry) =>
        entry.type === 'webhook.gave_up' ||
        entry.type === 'webhook.undelivered' ||
        (entry.type === 'webhook.attempt' && entry.result === 'succeeded'),
    )
  )
    await showResendFailed();
  if (entries.some((entry) => entry.type.startsWith('relay.'))) await loadRelay();
  const session = state.session;
  if (session && entries.some((entry) => entry.session_id === session.session_id))
    await openSession(session.session_id, { live: true });
  // The drawer open on an event follows its new attempts.
  const open = state.event;
  if (open?.event_id && !$('event-panel').hidden && entries.some((entry) => entry.event_id === open.event_id))
    await showEvent(open.id, drawerRow(), { live: true });
}

/** Entries that came while paused, shown on resume. */
export const held: TraceEntry[] = [];

export function receive(entries: TraceEntry[]): void {
  if (state.paused) return void held.unshift(...entries);
  addEntries(entries.filter(wantedLive));
  follow(entries).catch(report);
}

/**
 * The server pushes new entries (GET /console/trace/stream, read with fetch so
 * the token goes in a header); if the stream ends it is opened again from the
 * last cursor, so nothing is missed.
 */
async function stream(): Promise<void> {
  const controller = new AbortController();
  state.stream = controller;
  const params = traceQuery(true);
  params.set('after', state.cursor ?? '0');
  try {
    const response = await fetch(`/console/trace/stream?${params}`, {
      headers: { authorization: `Bearer ${state.token}` },
      signal: controller.signal,
    });
    if (response.status === 401) return tokenGone();
    if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
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
        const event = /^event: (.*)$/m.exec(frame)?.[1];
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (event === 'entries' && data) {
          const answer = JSON.parse(data) as { data: TraceEntry[]; cursor: string };
          state.cursor = answer.cursor;
          receive(answer.data);
        } else if (event === 'unauthorized') {
          return tokenGone();
        }
      }
    }
  } catch (error) {
    if (controller.signal.aborted) return;
    $('error').textContent = `Live updates interrupted (${(error as Error).message}); reconnecting…`;
  }
  if (state.stream === controller && !controller.signal.aborted) state.timer = setTimeout(() => void stream(), 1000);
}

export function restartStream(): void {
  state.stream?.abort();
  if (state.timer) clearTimeout(state.timer);
  void stream();
}
