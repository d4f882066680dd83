// A session's scheduled accreditation, found by the scheduler's pass through its due time.

/** A session's accreditation due at `due_at`. */
export interface ScheduleRecord {
  [field: string]: unknown;
  session_id: string;
  account_id: string;
  /** On the account's clock. */
  due_at: string;
  /** On the server's clock, what the scheduler finds it by (due-times.ts). Absent from records of earlier versions. */
  due_ms?: number;
}
