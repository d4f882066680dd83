import type { Credit } from './money.js';
import type { IndexDeclaration } from '../store/record-index.js';

export type SessionStatus = 'pending' | 'paid' | 'failed' | 'expired';
export type AccreditationStatus = 'none' | 'scheduled' | 'accredited' | 'failed';
export type Leg2Outcome = 'accredited' | 'accreditation_failed';
export type Origin = 'button' | 'request' | 'stop';

/** A payment session as stored (addendum §5); amounts in cents. */
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
}

/** The console's sessions of an account, newest first. */
export const sessionIndexes: IndexDeclaration[] = [
  { equals: ['account_id'], order: { field: 'created_at', type: 'time' } },
  // The console's sessions by status.
  { equals: ['account_id', 'status'], order: { field: 'created_at', type: 'time' } },
];
