// The relay protocol's messages, version 1 (docs/relay-protocol.md): one
// definition for the server that sends them and the clients that read them.

/** The server's word on a (re)connection (docs/relay-protocol.md). */
export interface ResumeMessage {
  type: 'resume';
  v: number;
  /** Every position up to this one was delivered or is gone. */
  cursor: number;
  /** The last position the server looked at: past `cursor`, only `resending` and `pending` are owed. */
  up_to: number;
  /** Positions the server attempts again now, in order. */
  resending: number[];
  /** Positions still on their retry ladder: they come by it. */
  pending: number[];
  /** Missed deliveries a backfill left out (past its limit). */
  left_out: number;
  /** When the first resent delivery was first routed, on the account's clock. */
  from: string | null;
}

/** A delivery to make: POST `body`, byte for byte, with `headers` to the local receiver. */
export interface WebhookMessage {
  type: 'webhook';
  delivery_id: string;
  event_id: string;
  /** Its place in the account's relay sequence. */
  position?: number;
  /** Sent again because this client missed it. */
  resumed?: boolean;
  url: string;
  headers: Record<string, string>;
  body: string;
}
