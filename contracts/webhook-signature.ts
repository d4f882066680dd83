import { createHmac, timingSafeEqual } from 'node:crypto';

// INTERFACE.md §7. The signed string is svc-timestamp, a dot,
// then the raw body byte for byte; HMAC-SHA256 with the account's webhook
// secret, lowercase hex. Exported for integrators' receivers.

export function signWebhook(secret: string, timestamp: string, rawBody: string | Buffer): string {
  // A string is hashed as its UTF-8 bytes.
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

export interface VerifyInput {
  /** The body exactly as received: re-serialised JSON does not verify. */
  rawBody: string | Buffer;
  /** Request headers; names in any case. */
  headers: Record<string, string | string[] | undefined> | Headers;
  secret: string;
  /** Oldest (and furthest ahead) svc-timestamp accepted; 300 s by default (the interface's worked example). */
  toleranceSeconds?: number;
  /** Now, in ms since the epoch; injectable for tests. */
  now?: number;
}

export type VerifyResult =
  | { ok: true; timestamp: string; idempotencyKey: string | null }
  | {
      ok: false;
      reason: 'missing_signature' | 'missing_timestamp' | 'bad_timestamp' | 'stale_timestamp' | 'signature_mismatch';
    };

/**
 * The interface's receiver rules: signature and timestamp checked before anything
 * else, the signature compared in constant time, stale timestamps refused.
 * Answer 401 when `ok` is false; deduplicate by `idempotencyKey`.
 */
export function verifyWebhook({
  rawBody,
  headers,
  secret,
  toleranceSeconds = 300,
  now = Date.now(),
}: VerifyInput): VerifyResult {
  const header = (name: string): string | undefined => {
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
    return Array.isArray(found) ? found[0] : found;
  };
  const signature = header('svc-signature');
  const timestamp = header('svc-timestamp');
  if (!signature) return { ok: false, reason: 'missing_signature' };
  if (!timestamp) return { ok: false, reason: 'missing_timestamp' };
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return { ok: false, reason: 'bad_timestamp' };
  if (Math.abs(now - at) > toleranceSeconds * 1000) return { ok: false, reason: 'stale_timestamp' };
  // Compared as the hex text it is sent as: anything but the 64 lowercase digits differs.
  const expected = Buffer.from(signWebhook(secret, timestamp, rawBody));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'signature_mismatch' };
  return { ok: true, timestamp, idempotencyKey: header('idempotency-key') ?? null };
}
