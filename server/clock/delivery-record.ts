// A delivery still to be made, kept while it is pending (then its outcome is),
// read by the dispatcher's pass, the clock's moves and a session's next delivery.

/** A delivery still to be made: one per event, until it is delivered or given up. */
export interface DeliveryRecord {
  [field: string]: unknown;
  event_id: string;
  account_id: string;
  session_id: string;
  seq: number;
  attempts: number;
  /** On the account's clock. */
  next_attempt_at: string;
  /** On the server's clock, what the dispatcher finds it by; QUEUED behind an earlier delivery of the session (due-times.ts). Absent from records of earlier versions. */
  due_ms?: number;
}
