import { api, Stopped } from './api.js';
import { showEvent } from './drawer.js';
import { button, cell, el } from './dom.js';
import { statusBadge, when } from './format.js';
import { state } from './state.js';
import type { ShownAttempt, TraceEntry } from './types.js';

// A trace entry as a row: when, what, its summary, and what can be done
// with it (its details in the drawer; an emitted event resent).

const SUMMARY_FIELDS = [
  'session_id',
  'event',
  'receiver',
  'routing',
  'attempt',
  'attempts',
  'status',
  'error',
  'duration_ms',
  'from',
  'to',
  'outcome',
  'manual',
];

const summary = (entry: TraceEntry) =>
  el(
    'code',
    SUMMARY_FIELDS.filter((name) => name in entry)
      .map((name) => `${name}=${entry[name]}`)
      .join('  '),
    { class: 'summary' },
  );

export function traceRow(entry: TraceEntry): HTMLTableRowElement {
  const tr = el('tr', undefined, { 'data-id': entry.id, 'data-type': entry.type });
  const actions = el('div', undefined, { class: 'bar' });
  actions.append(
    button('Details', (event) => void showEvent(entry.id, (event.target as Element).closest('tr')), {
      'aria-label': `Details of ${entry.type} ${entry.event_id ?? entry.id}`,
    }),
  );
  if (entry.type === 'webhook.emitted') {
    const eventId = entry.event_id!;
    actions.append(button('Resend', () => void resend(eventId), { 'aria-label': `Resend ${entry.event} ${eventId}` }));
    actions.append(el('span', state.resent.get(eventId) ?? '', { role: 'status', 'data-resend': eventId }));
  }
  const details = el('div');
  if (entry.type === 'webhook.attempt') details.append(statusBadge(entry), ' ');
  details.append(summary(entry));
  tr.append(cell(when(entry.at)), cell(entry.type), cell(details), cell(actions));
  return tr;
}

async function resend(eventId: string): Promise<void> {
  setResend(eventId, 'resending…');
  try {
    const result = await api<ShownAttempt>(`/console/webhooks/${encodeURIComponent(eventId)}/resend`, {
      method: 'POST',
    });
    setResend(eventId, `resent: ${result.status ?? result.error} (${result.routing}, ${result.duration_ms} ms)`);
  } catch (error) {
    if (!(error instanceof Stopped)) setResend(eventId, `resend failed: ${(error as Error).message}`);
  }
}

function setResend(eventId: string, text: string): void {
  state.resent.set(eventId, text);
  for (const span of document.querySelectorAll<HTMLElement>('[data-resend]'))
    if (span.dataset.resend === eventId) span.textContent = text;
}
