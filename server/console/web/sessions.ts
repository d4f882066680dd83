import { api, report, Stopped } from './api.js';
import { closeDrawer } from './drawer.js';
import { $, button, cell, definitions, el, field, idLink, table, urlText } from './dom.js';
import { money, stateBadge, when } from './format.js';
import { state } from './state.js';
import { traceRow } from './trace-rows.js';
import type { AdmissibleOutcome, ShownAttempt, Session, TraceEntry } from './types.js';

// The sessions: a page at a time, rows updated in place; one session open
// in its panel with the control plane's forced outcomes (the ones the
// server's rules admit now, as it says) and its events.

export const SESSIONS_PER_PAGE = 20;

/** What a forced outcome does, in words. */
const OUTCOME_LABELS: Record<string, string> = {
  paid: 'Force paid',
  failed: 'Force failed',
  expired: 'Force expired',
  accredited: 'Force accredited',
  accreditation_failed: 'Force the accreditation to fail',
};

const sessionCells = (session: Session) => [
  idLink(session.session_id),
  stateBadge(session.status),
  money(session.amount_reference, session.currency_reference),
  stateBadge(session.accreditation.status),
  when(session.created_at),
];

function renderSessions(sessions: Session[]): void {
  const body = $<HTMLTableSectionElement>('sessions');
  const wanted = new Set(sessions.map((session) => session.session_id));
  for (const row of Array.from(body.rows)) if (!wanted.has(row.dataset.id!)) row.remove();
  let before = body.firstChild;
  for (const session of sessions) {
    let row = body.querySelector<HTMLTableRowElement>(`tr[data-id="${CSS.escape(session.session_id)}"]`);
    const cells = sessionCells(session);
    if (!row) {
      row = el('tr', undefined, { 'data-id': session.session_id });
      for (const value of cells) row.append(cell(value));
      row.append(
        cell(
          button('Open', () => void openSession(session.session_id), {
            'aria-label': `Open session ${session.session_id}`,
          }),
        ),
      );
      body.insertBefore(row, before);
    } else {
      cells.forEach((value, i) => {
        const text = value instanceof Node ? value.textContent : String(value);
        if (row!.cells[i]!.textContent !== text) row!.cells[i]!.replaceChildren(value instanceof Node ? value : text);
      });
    }
    before = row.nextSibling;
  }
}

export async function loadSessions(): Promise<Session[]> {
  const params = new URLSearchParams({ limit: String(SESSIONS_PER_PAGE), page: String(state.sessionsPage) });
  const prefix = field('session-find').value.trim();
  if (prefix) params.set('id_prefix', prefix);
  else {
    if (field('session-status').value) params.set('status', field('session-status').value);
    if (field('session-accreditation').value) params.set('accreditation', field('session-accreditation').value);
  }
  const answer = await api<{ data: Session[] }>(`/console/sessions?${params}`);
  renderSessions(answer.data);
  $('sessions-page').textContent = `page ${state.sessionsPage}`;
  $<HTMLButtonElement>('sessions-prev').disabled = state.sessionsPage === 1;
  $<HTMLButtonElement>('sessions-next').disabled = answer.data.length < SESSIONS_PER_PAGE;
  return answer.data;
}

/** Opens a session in its panel; a live redraw (`live`) keeps the focus where it is. */
export async function openSession(id: string, how: { live?: boolean } = {}): Promise<void> {
  try {
    const { session, admissible_outcomes: admissible } = await api<{
      session: Session;
      admissible_outcomes: AdmissibleOutcome[];
    }>(`/console/sessions/${encodeURIComponent(id)}`);
    state.session = session;
    $('session-title').textContent = `Session ${session.session_id}`;
    const fields = $('session-fields');
    fields.replaceChildren();
    const add = definitions(fields);
    add('Status', session.status);
    add('Amount', money(session.amount_reference, session.currency_reference));
    add(
      'Accreditation',
      session.accreditation.status +
        (session.accreditation.scheduled_for ? `, scheduled for ${session.accreditation.scheduled_for}` : ''),
    );
    add(
      'Due date',
      session.due_date_session ? `${session.due_date_session} (${session.due_date_reached_behavior})` : 'none',
    );
    const payLink = el('a', undefined, { href: session.pay_url });
    payLink.append(urlText(session.pay_url));
    add('Pay link', payLink);
    add('Webhook URL', session.webhook_url ? urlText(session.webhook_url) : 'none');
    const payment = session.session_payment ?? {};
    const credits = payment.receiver_credits_summary;
    const currency = (amount: number) => money(amount, session.currency_reference);
    if (credits)
      add(
        'Credits',
        `${currency(credits.net_amount)} net of ${currency(credits.gross_amount)}, after ${currency(credits.commissions)} in commissions, to ${credits.total_credits === 1 ? 'one receiver' : `${credits.total_credits} receivers`}`,
      );
    const each = payment.receiver_credits ?? [];
    if (each.length > 0) add('Credited to', creditsTable(each, currency));
    if (session.failure_reason) add('Failure', session.failure_reason);
    const controls = $('session-controls');
    controls.replaceChildren();
    // The server says which forced outcomes its rules admit now (INTERFACE.md §6): the page keeps no copy of them.
    for (const { leg, outcome } of admissible)
      controls.append(
        button(OUTCOME_LABELS[outcome] ?? `Force ${outcome}`, () => void force(session.session_id, leg, outcome)),
      );
    if (admissible.length === 0)
      controls.append(
        el(
          'span',
          `Nothing left to force: the session is ${session.status}${session.accreditation.status === 'none' ? '' : ` and its accreditation ${session.accreditation.status}`}, which is final.`,
          { class: 'muted' },
        ),
      );
    const [events, failed] = await Promise.all([
      api<{ data: TraceEntry[] }>(`/console/trace?limit=200&session_id=${encodeURIComponent(session.session_id)}`),
      api<FailedEvents>(`/console/webhooks/failed?session_id=${encodeURIComponent(session.session_id)}`),
    ]);
    const count = `${failed.event_ids.length}${failed.more ? '+' : ''}`;
    if (failed.event_ids.length > 0)
      controls.append(
        button(
          failed.event_ids.length === 1 ? 'Resend its failed event' : `Resend its ${count} failed events`,
          () => void resendFailed(session.session_id),
        ),
      );
    // A drawer open under one of these rows stays under it when they are drawn again.
    const drawer = document.getElementById('event-drawer');
    const list = $('session-events');
    const anchor =
      drawer && drawer.parentNode === list && drawer.previousElementSibling
        ? (drawer.previousElementSibling as HTMLElement).dataset.id
        : null;
    list.replaceChildren(...events.data.map((entry) => (state.entries.set(entry.id, entry), traceRow(entry))));
    if (anchor && drawer) {
      const row = list.querySelector(`tr[data-id="${CSS.escape(anchor)}"]`);
      if (row) row.after(drawer);
      else closeDrawer();
    }
    $('session-panel').hidden = false;
    // A live update redraws in place; only the operator's own opening moves the focus.
    if (!how.live) $('session-title').focus();
  } catch (error) {
    report(error);
  }
}

/** What the server's resend-failed would take now (GET /console/webhooks/failed): the page keeps no copy of the rule. */
interface FailedEvents {
  event_ids: string[];
  more: boolean;
}

/** Each receiver's credit: who, gross, commission, net, and whether it was credited. */
function creditsTable(credits: Array<Record<string, unknown>>, currency: (amount: number) => string): HTMLElement {
  const rows = credits.map((credit) => [
    `${String(credit.receiver_id)} (${String(credit.receiver_type)})`,
    currency(Number(credit.gross_amount)),
    currency(Number(credit.commission)),
    currency(Number(credit.net_amount)),
    stateBadge(String(credit.status)),
  ]);
  return table('Credits by receiver', ['Receiver', 'Gross', 'Commission', 'Net', 'Status'], rows);
}

/** The trace's "Resend every failed event" shows only while the account has one. */
export async function showResendFailed(): Promise<void> {
  const failed = await api<FailedEvents>('/console/webhooks/failed');
  $('resend-failed').hidden = failed.event_ids.length === 0;
}

/** Resends the failed events of a session, or of the account (no session): the server finds them, 10 at a time. */
export async function resendFailed(sessionId: string | null): Promise<void> {
  const where = sessionId ? $('session-result') : $('resend-failed-result');
  try {
    const answer = await api<{ resent: ShownAttempt[]; more: boolean }>('/console/webhooks/resend-failed', {
      method: 'POST',
      ...(sessionId ? { json: { session_id: sessionId } } : {}),
    });
    const delivered = answer.resent.filter(
      (attempt) => typeof attempt.status === 'number' && attempt.status >= 200 && attempt.status < 300,
    ).length;
    if (sessionId) await openSession(sessionId);
    await showResendFailed();
    where.textContent =
      answer.resent.length === 0
        ? 'No failed event to resend.'
        : `Resent ${answer.resent.length} failed event(s): ${delivered} delivered now${answer.more ? '; more are left: press again.' : '.'}`;
  } catch (error) {
    if (!(error instanceof Stopped)) where.textContent = `Resend failed: ${(error as Error).message}`;
  }
}

async function force(id: string, leg: 1 | 2, outcome: string): Promise<void> {
  try {
    await api(`/control/sessions/${encodeURIComponent(id)}/outcome`, {
      method: 'POST',
      json: { leg, outcome },
      apiToken: true,
    });
    await openSession(id);
    $('session-result').textContent = `Done: ${(OUTCOME_LABELS[outcome] ?? outcome).replace(/^Force /, '')}.`;
  } catch (error) {
    $('session-result').textContent = error instanceof Stopped ? '' : `Refused: ${(error as Error).message}`;
  }
}
