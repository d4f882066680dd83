// An entry of an account's trace (GET /console/trace), as far as its readers
// use it: the console page and the contract suite's webhook checks. The
// OpenAPI schema (TraceEntry) declares the common fields; an entry carries
// those of its type (INTERFACE.md §7, §8).

export interface TraceEntry {
  id: string;
  type: string;
  at: string;
  session_id?: string;
  event_id?: string;
  event?: string;
  result?: 'succeeded' | 'failed';
  status?: number | null;
  error?: string;
  url?: string | null;
  routing?: string;
  attempt?: number;
  duration_ms?: number;
  manual?: boolean;
  response_body?: string | null;
  request_headers?: Record<string, string>;
  headers?: Record<string, string>;
  payload?: string;
  raw_body?: string;
  signature?: string;
  idempotency_key?: string;
  /** An attempt's body, as its event was emitted (added by the page). */
  body?: string;
  [field: string]: unknown;
}
