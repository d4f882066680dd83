import { splitCredits } from './money.js';
import type { Leg2Outcome, SessionRecord, SessionStatus } from './session.js';

// INTERFACE.md §5, §6.
// Pure: the session and a trigger in, the session and its effects out.

export type EventName =
  | 'payment_session.created'
  | 'payment_session.paid'
  | 'payment_session.accredited'
  | 'payment_session.accreditation_to_recipient_failed';

/** An event to emit with the change that caused it; `receiver_id` for a failed credit. */
export interface EventEffect {
  event: EventName;
  receiver_id?: string;
}

export type SessionTrigger =
  /** The control plane (INTERFACE.md §6); `outcome` as sent, admission checked here. */
  | { kind: 'force'; leg: 1 | 2; outcome: string }
  /** A payment through the payment page: leg 2 is scheduled to end as chosen, at `accreditAt`. */
  | { kind: 'page'; outcome: 'paid'; leg2: Leg2Outcome; accreditAt: string }
  | { kind: 'page'; outcome: 'failed'; reason: string }
  | { kind: 'page'; outcome: 'expired' }
  /** The scheduled accreditation coming due. */
  | { kind: 'scheduled-accreditation' }
  /** POST …/expire. */
  | { kind: 'expire' }
  /** Time passing: the due date rule. */
  | { kind: 'due-date'; now: number };

export type SessionOutcome =
  | { result: 'changed'; session: SessionRecord; events: EventEffect[]; schedule?: 'set' | 'cancel' }
  | { result: 'unchanged'; session: SessionRecord }
  | {
      result: 'rejected';
      code: 'INVALID_FORCED_TRANSITION' | 'SESSION_ALREADY_PAID' | 'SESSION_NOT_PAYABLE';
      reason: string;
    };

const leg1Outcomes = ['paid', 'failed', 'expired'];
const leg2Outcomes = ['accredited', 'accreditation_failed'];

export function transition(session: SessionRecord, trigger: SessionTrigger): SessionOutcome {
  switch (trigger.kind) {
    case 'due-date':
      return dueDate(session, trigger.now);
    case 'expire':
      // rule 6: expiring a paid session answers 422.
      if (session.status === 'paid')
        return reject('SESSION_ALREADY_PAID', 'the session is already paid and cannot expire');
      if (session.status === 'expired') return { result: 'unchanged', session };
      return changed({ ...session, status: 'expired' }, []);
    case 'force':
      return force(session, trigger.leg, trigger.outcome);
    case 'page':
      if (session.status !== 'pending')
        return reject('SESSION_NOT_PAYABLE', `the session is ${session.status}, not pending`);
      if (trigger.outcome === 'paid') {
        // rule 3: paying through the page schedules leg 2.
        const paid = leg1(session, 'paid');
        return {
          ...paid,
          session: {
            ...paid.session,
            accreditation: { status: 'scheduled', scheduled_for: trigger.accreditAt, outcome: trigger.leg2 },
          },
          schedule: 'set',
        };
      }
      if (trigger.outcome === 'failed')
        return changed({ ...session, status: 'failed', failure_reason: trigger.reason }, []);
      return changed({ ...session, status: 'expired' }, []);
    case 'scheduled-accreditation':
      if (session.status !== 'paid' || session.accreditation.status !== 'scheduled')
        return { result: 'unchanged', session };
      return leg2(session, session.accreditation.outcome ?? 'accredited');
  }
}

/**
 * The forced outcomes (INTERFACE.md §6) the rules admit on `session` now: each
 * one force() would not refuse. The console offers these, and no copy of
 * the rules.
 */
export function admissibleOutcomes(session: SessionRecord): Array<{ leg: 1 | 2; outcome: string }> {
  const candidates = [
    ...leg1Outcomes.map((outcome) => ({ leg: 1 as const, outcome })),
    ...leg2Outcomes.map((outcome) => ({ leg: 2 as const, outcome })),
  ];
  return candidates.filter(({ leg, outcome }) => force(session, leg, outcome).result !== 'rejected');
}

/** rule 7: past its due date, an expire-mode pending session is expired; keep_active stays pending. */
function dueDate(session: SessionRecord, now: number): SessionOutcome {
  if (
    session.status !== 'pending' ||
    session.due_date_reached_behavior !== 'expire' ||
    session.due_date_session === null
  )
    return { result: 'unchanged', session };
  if (Date.parse(session.due_date_session) > now) return { result: 'unchanged', session };
  return changed({ ...session, status: 'expired' }, []);
}

function force(session: SessionRecord, leg: 1 | 2, outcome: string): SessionOutcome {
  if (leg === 1) {
    if (!leg1Outcomes.includes(outcome))
      return reject(
        'INVALID_FORCED_TRANSITION',
        `${outcome} is not a leg 1 outcome; leg 1 takes ${leg1Outcomes.join(', ')}`,
      );
    // rule 2: leg 1 cannot be forced on a paid session.
    if (session.status === 'paid')
      return reject('INVALID_FORCED_TRANSITION', 'leg 1 cannot be forced on a session that is already paid');
    // rule 4: forcing paid does not schedule the accreditation.
    return leg1(session, outcome as SessionStatus);
  }
  if (!leg2Outcomes.includes(outcome))
    return reject(
      'INVALID_FORCED_TRANSITION',
      `${outcome} is not a leg 2 outcome; leg 2 takes ${leg2Outcomes.join(', ')}`,
    );
  // rule 2: leg 2 requires a paid session.
  if (session.status !== 'paid')
    return reject('INVALID_FORCED_TRANSITION', `leg 2 requires the session to be paid; it is ${session.status}`);
  if (session.accreditation.status !== 'none' && session.accreditation.status !== 'scheduled') {
    return reject('INVALID_FORCED_TRANSITION', `the accreditation already ended: ${session.accreditation.status}`);
  }
  // rule 5: a forced leg 2 cancels a scheduled one, so only one notice is ever delivered.
  const done = leg2(session, outcome as Leg2Outcome);
  return session.accreditation.status === 'scheduled' ? { ...done, schedule: 'cancel' } : done;
}

function leg1(session: SessionRecord, status: SessionStatus): SessionOutcome & { result: 'changed' } {
  const { failure_reason: _reason, ...rest } = session;
  const next: SessionRecord = { ...rest, status, ...(status === 'failed' ? { failure_reason: 'forced' } : {}) };
  return changed(next, status === 'paid' ? [{ event: 'payment_session.paid' }] : []);
}

function leg2(session: SessionRecord, outcome: Leg2Outcome): SessionOutcome & { result: 'changed' } {
  const status = outcome === 'accredited' ? 'credited' : 'failed';
  const credits = splitCredits(session.amount_cents, session.distribution, session.account_id, status);
  const next: SessionRecord = {
    ...session,
    accreditation: { status: outcome === 'accredited' ? 'accredited' : 'failed' },
    credits,
  };
  const events: EventEffect[] =
    outcome === 'accredited'
      ? [{ event: 'payment_session.accredited' }]
      : credits.map((credit) => ({
          event: 'payment_session.accreditation_to_recipient_failed',
          receiver_id: credit.receiver_id,
        }));
  return changed(next, events);
}

function changed(session: SessionRecord, events: EventEffect[]): SessionOutcome & { result: 'changed' } {
  return { result: 'changed', session, events };
}

function reject(
  code: 'INVALID_FORCED_TRANSITION' | 'SESSION_ALREADY_PAID' | 'SESSION_NOT_PAYABLE',
  reason: string,
): SessionOutcome {
  return { result: 'rejected', code, reason };
}
