import type { Credit } from './money.js';
import type { IndexDeclaration } from '../store/store.js';

export type SessionStatus = 'pending' | 'paid' | 'failed' | 'expired';
export type AccreditationStatus = 'none' | 'scheduled' | 'accredited' | 'failed';
export type Leg2Outcome = 'accredited' | 'accreditation_failed';
export type Origin = 'button' | 'request' | 'stop';

/** A payment session as stored (INTERFACE.md §5); amounts in cents. */
export interface SessionRecord {
  [field: string]: unknown;
  session_id: string;
  account_id: string;
  status: SessionStatus;
  agreement_id: string;
  amount_cents: number;
  currency_reference: string;
  due_date_session: string | null;
  due_date_reached_behavior: 'expire' | 'keep_active';
  webhook_url: string | null;
  description: string | null;
  created_at: string;
  origin: Origin;
  payment_id: string;
  distribution: Array<{ partner_id: string; amount_cents: number }>;
  accreditation: { status: AccreditationStatus; scheduled_for?: string; outcome?: Leg2Outcome };
  credits?: Credit[];
  failure_reason?: string;
  /** Per-session event counter, so events of one session keep their order. */
  event_seq: number;
  /** accreditation.status, copied to the top so the console's filter goes through an index (storedSession). */
  accreditation_status?: AccreditationStatus;
}

/** A session as written: with the top-level copies its indexes list it by. */
export function storedSession(session: SessionRecord): SessionRecord {
  return session.accreditation_status === session.accreditation.status
    ? session
    : { ...session, accreditation_status: session.accreditation.status };
}

/** The console's sessions of an account, newest first. */
export const sessionIndexes: IndexDeclaration[] = [
  { equals: ['account_id'], order: { field: 'created_at', type: 'time' } },
  // The console's sessions by status, by accreditation, or both.
  { equals: ['account_id', 'status'], order: { field: 'created_at', type: 'time' } },
  { equals: ['account_id', 'accreditation_status'], order: { field: 'created_at', type: 'time' } },
  { equals: ['account_id', 'status', 'accreditation_status'], order: { field: 'created_at', type: 'time' } },
  // The console's search by the start of an id: a range of ids, walked in their order.
  { equals: ['account_id'], order: { field: 'session_id', type: 'text' } },
];
