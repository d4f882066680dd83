// What the console reads from the server's answers (the console API and the
// account's own API), as far as the page uses it. The OpenAPI document is
// the whole of each answer; these name the fields the page shows.

/** An entry of the account's trace (GET /console/trace): one type for the page and the contract suite. */
export type { TraceEntry } from '../../../contracts/trace-entry.js';

/** A forced outcome the session admits now (INTERFACE.md §6), as the server's rules decide. */
export interface AdmissibleOutcome {
  leg: 1 | 2;
  outcome: string;
}

/** A session as the console shows it (GET /console/sessions/{session_id}, with the outcomes it admits beside it). */
export interface Session {
  session_id: string;
  status: string;
  amount_reference: number;
  currency_reference: string;
  accreditation: { status: string; scheduled_for?: string };
  due_date_session: string | null;
  due_date_reached_behavior: string;
  pay_url: string;
  webhook_url: string | null;
  created_at: string;
  failure_reason?: string;
  session_payment?: {
    receiver_credits_summary?: { gross_amount: number; commissions: number; net_amount: number; total_credits: number };
    receiver_credits?: Array<Record<string, unknown>>;
  };
}

/** The account's keys and default receivers (GET /console/keys). */
export interface Keys {
  merchant_id: string;
  keys: Array<{ token: string; webhook_secret: string }>;
  hooks: Record<string, string>;
}

/** What an attempt answered: the outcome of a resend. */
export interface ShownAttempt {
  attempt: number;
  url: string | null;
  status?: number | null;
  error?: string;
  routing: string;
  duration_ms: number;
}

/** The parts of a signed webhook, for its headers, its curl and the signature check. */
export interface SignedParts {
  body: string;
  timestamp: string;
  signature: string;
  key: string;
}
