// Signed settlement POSTs for the benches, made before a run starts: the
// generator shares the machine's two cores with the servers, so it should
// not spend CPU on JSON and HMAC while measuring, and a signed run should
// cost it no more than an unsigned one.
import type autocannon from 'autocannon';
import { computePosSignature } from '../../contracts/clients/pos-client.js';
import type { PacedRequest } from './paced-load.js';

let batch = 0;
/** Told apart when several generator processes write for the same terminals (bench:scale): each its own prefix. */
let prefix = 'B';
export const setBatchPrefix = (value: string) => void (prefix = value);

/** The next settlement POST of terminal `serial`: a new batchNumber each time, signed anew when `signed`. */
export function nextSettlement(serial: string, secret: string, signed: boolean): PacedRequest {
  batch += 1;
  const path = `/api/v1/pos-terminals/${encodeURIComponent(serial)}/settlements`;
  const body = JSON.stringify({
    batchNumber: `${prefix}${batch}`,
    transactionCount: batch % 500,
    closedAt: new Date(1_790_000_000_000 + batch * 1000).toISOString(),
    currencyReference: 'USD',
    terminal: serial,
    debitBatch: `D${batch}`,
  });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
  };
  if (signed) {
    const timestamp = new Date().toISOString();
    headers['x-pos-timestamp'] = timestamp;
    headers['x-pos-signature'] = computePosSignature(secret, timestamp, path, body);
  }
  return { method: 'POST', path, headers, body };
}

/** The most requests a second the generator prepares for (bare Koa reaches about 17,000-38,000 here; signed POSTs about 7,000). */
export const PREPARED_PER_SECOND = 12_000;

/** `count` settlement POSTs made now; past them, more are made on the fly. Timestamps stay well inside the 300 s tolerance for a run of minutes. */
export function preparedSettlements(
  serial: string,
  secret: string,
  signed: boolean,
  count: number,
): () => PacedRequest {
  const ready = Array.from({ length: Math.ceil(count) }, () => nextSettlement(serial, secret, signed));
  let taken = 0;
  return () => (taken < ready.length ? ready[taken++]! : nextSettlement(serial, secret, signed));
}

/** autocannon's requests for `seconds` of settlement POSTs at up to `perSecond`, made now. */
export function settlementRequests(
  serial: string,
  secret: string,
  signed: boolean,
  seconds: number,
  perSecond = PREPARED_PER_SECOND,
): autocannon.Request[] {
  const next = preparedSettlements(serial, secret, signed, seconds * perSecond);
  return [
    {
      method: 'POST',
      path: `/api/v1/pos-terminals/${encodeURIComponent(serial)}/settlements`,
      setupRequest: (request) => {
        // autocannon sets content-length itself.
        const {
          body,
          headers: { 'content-length': _length, ...headers },
        } = next();
        return { ...request, body, headers };
      },
    },
  ];
}
