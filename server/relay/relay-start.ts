// A relay connection's edges: the query a client opens it with, the HTTP
// refusal of an upgrade (written on the socket before any WebSocket
// exists), and what a client's result message says of an attempt.
import type { Duplex } from 'node:stream';
import { boundedAnswer } from '../../contracts/answer-excerpt.js';
import { nestsDeeperThan } from '../http/json-depth.js';
import type { AttemptResult } from '../webhooks/transport.js';

/** What a connecting client asks for: where to resume (its cursor), or a first connection's backfill. */
export type RelayStart = { cursor: number } | { backfillMs: number } | null;
export function refuse(socket: Duplex, status: number, body: Record<string, unknown>): void {
  const text = JSON.stringify(body);
  const reason =
    status === 401 ? 'Unauthorized' : status === 404 ? 'Not Found' : status === 503 ? 'Service Unavailable' : 'Error';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

/** The longest backfill a first connection may ask for. */
export const MAX_BACKFILL_MS = 24 * 3_600_000;

/** `?cursor=N` (a position the client kept) or `?backfill_ms=N` (a first connection's look back); neither is a plain connection. */
export function relayStart(params: URLSearchParams): { start: RelayStart } | { error: string } {
  const cursor = params.get('cursor');
  const backfill = params.get('backfill_ms');
  if (cursor !== null && backfill !== null) return { error: 'give cursor or backfill_ms, not both' };
  if (cursor !== null) {
    if (!/^\d{1,15}$/.test(cursor))
      return { error: `cursor must be a position (a whole number), not ${JSON.stringify(cursor.slice(0, 40))}` };
    return { start: { cursor: Number(cursor) } };
  }
  if (backfill !== null) {
    const ms = Number(backfill);
    if (!/^\d{1,15}$/.test(backfill) || ms < 1 || ms > MAX_BACKFILL_MS)
      return {
        error: `backfill_ms must be from 1 to ${MAX_BACKFILL_MS} (24 h), not ${JSON.stringify(backfill.slice(0, 40))}`,
      };
    return { start: { backfillMs: ms } };
  }
  return { start: null };
}

/** A client's answer to one delivery: `{ type: 'result', delivery_id, status, body? }` or `{ …, error }`; anything else is ignored. */
export function relayResult(text: string): { deliveryId: string; attempt: AttemptResult } | undefined {
  if (nestsDeeperThan(text)) return undefined; // a result is flat; nothing deeper is ours to walk
  let message: { type?: unknown; delivery_id?: unknown; status?: unknown; error?: unknown; body?: unknown };
  try {
    message = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (message.type !== 'result' || typeof message.delivery_id !== 'string') return undefined;
  const deliveryId = message.delivery_id;
  // A client that could not reach its local receiver says why: a failed attempt with that reason, not a receiver's 502.
  if (typeof message.error === 'string')
    return { deliveryId, attempt: { error: `through the relay: ${message.error.slice(0, 300)}` } };
  if (typeof message.status !== 'number')
    return { deliveryId, attempt: { error: 'the relay answered without a status' } };
  const body = boundedAnswer(message.body);
  return { deliveryId, attempt: { status: message.status, ...(body !== undefined ? { body } : {}) } };
}
