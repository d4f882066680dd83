import { creditsSummary, fromCents, publicCredit } from './money.js';
import type { SessionRecord } from './session.js';

/** The session as answered (INTERFACE.md §5). */
export function publicSession(session: SessionRecord, publicUrl: string) {
  const { accreditation } = session;
  return {
    session_id: session.session_id,
    status: session.status,
    agreement_id: session.agreement_id,
    amount_reference: fromCents(session.amount_cents),
    currency_reference: session.currency_reference,
    due_date_session: session.due_date_session,
    due_date_reached_behavior: session.due_date_reached_behavior,
    webhook_url: session.webhook_url,
    pay_url: `${publicUrl}/pay/${session.session_id}`,
    created_at: session.created_at,
    accreditation: {
      status: accreditation.status,
      ...(accreditation.status === 'scheduled' && accreditation.scheduled_for
        ? { scheduled_for: accreditation.scheduled_for }
        : {}),
    },
    session_payment: { ...paymentReference(session), ...creditFields(session) },
    description: session.description,
    ...(session.failure_reason ? { failure_reason: session.failure_reason } : {}),
  };
}

/** `{ id, origin, amount_reference }`: what every event carries. */
export function paymentReference(session: SessionRecord) {
  return { id: session.payment_id, origin: session.origin, amount_reference: fromCents(session.amount_cents) };
}

/** receiver_credits and receiver_credits_summary, once leg 2 has ended. */
export function creditFields(session: SessionRecord) {
  if (!session.credits) return {};
  return {
    receiver_credits: session.credits.map(publicCredit),
    receiver_credits_summary: creditsSummary(session.credits),
  };
}
