import { signWebhook } from '../../webhook-signature.js';
import type { CheckContext } from './check.js';
import type { Expectations } from '../expectations.js';
import { traceOf, type SuiteAccount, type TraceEntry } from './fixtures.js';

// What a webhook delivery is checked against wherever it arrived (INTERFACE.md §7): its headers, its signature, its body.

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export interface ReceivedDelivery {
  /** The exact bytes received. */
  body: string;
  headers: Record<string, string>;
}

export const header = (delivery: ReceivedDelivery, name: string) =>
  Object.entries(delivery.headers).find(([key]) => key.toLowerCase() === name)?.[1];

/** The interface's rules for one delivery: content type, the signature over timestamp + "." + the exact bytes, the key. */
export function checkDelivery(expect: Expectations, delivery: ReceivedDelivery, secret: string, where: string): void {
  const timestamp = header(delivery, 'svc-timestamp') ?? '';
  const signature = header(delivery, 'svc-signature') ?? '';
  expect.that(
    (header(delivery, 'content-type') ?? '').startsWith('application/json'),
    null,
    'header:content-type',
    `${where}: application/json`,
    header(delivery, 'content-type') ?? 'none',
  );
  expect.that(
    signature === signWebhook(secret, timestamp, delivery.body),
    null,
    'header:svc-signature',
    `${where}: HMAC-SHA256 with the account's webhook secret over svc-timestamp + "." + the body as received`,
    signature || 'none',
  );
  expect.that(
    UUID_V4.test(header(delivery, 'idempotency-key') ?? ''),
    null,
    'header:idempotency-key',
    `${where}: a UUID v4`,
    header(delivery, 'idempotency-key') ?? 'none',
  );
}

export const fromTrace = (entry: TraceEntry): ReceivedDelivery => ({
  body: String(entry.raw_body ?? ''),
  headers: (entry.headers ?? {}) as Record<string, string>,
});

export const parsed = (
  raw: unknown,
): { event_id?: string; event?: string; data?: { session_id?: string; receiver_id?: string } } => {
  try {
    return JSON.parse(String(raw)) ?? {};
  } catch {
    return {};
  }
};
export const sessionOfBody = (raw: unknown) => parsed(raw).data?.session_id;
/** The event a received delivery carries, from its body (INTERFACE.md fixes event_id there). */
export const eventOf = (entry: TraceEntry) => parsed(entry.raw_body).event_id;

// Each check has an account of its own with one receiver in use, so entries
// are told apart by what INTERFACE.md fixes (the body, event_id), not by
// fields of ours (the receiver's name) or by a session filter the entry may
// not carry.

/** Deliveries the account's receivers recorded for a session, oldest first. */
export async function received(ctx: CheckContext, account: SuiteAccount, sessionId: string): Promise<TraceEntry[]> {
  return (await traceOf(ctx.http, account, 'webhook.received')).filter((e) => sessionOfBody(e.raw_body) === sessionId);
}

/** The events emitted for a session, oldest first. */
export async function emitted(ctx: CheckContext, account: SuiteAccount, sessionId: string): Promise<TraceEntry[]> {
  return (await traceOf(ctx.http, account, 'webhook.emitted')).filter(
    (e) => (e.session_id ?? sessionOfBody(e.payload)) === sessionId,
  );
}
