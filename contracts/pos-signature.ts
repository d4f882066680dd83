import { createHmac } from 'node:crypto';

/**
 * The POS request signature of INTERFACE.md §2, shared by the server that checks
 * it and the terminal client that makes it: lowercase hex HMAC-SHA256, keyed
 * with the terminal's secret (its hex text, as shown at provisioning), over
 * `timestamp + "." + url + "." + body`. `url` is the request target exactly
 * as sent (path plus `?query`); `body` the raw bytes, empty when bodyless.
 *
 * @example computePosSignature('00…ff', '2026-11-21T10:00:00.000Z', '/api/v1/pos-terminals/SN1/settlements', '{"a":1}')
 */
export function computePosSignature(secret: string, timestamp: string, url: string, body: string | Buffer): string {
  return posSignatureBytes(secret, timestamp, url, body).toString('hex');
}

/** The same signature as its 32 bytes, which the server compares with what it received. */
export function posSignatureBytes(secret: string, timestamp: string, url: string, body: string | Buffer): Buffer {
  // A string is hashed as its UTF-8 bytes.
  return createHmac('sha256', secret).update(`${timestamp}.${url}.`).update(body).digest();
}
