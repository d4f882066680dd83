import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { AnswerExcerpt } from '../../contracts/answer-excerpt.js';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isPrivateAddress } from './routing.js';
import { ATTEMPT_TIMEOUT_MS } from './ladder.js';
import type { AttemptResult, WebhookRequest } from './transport.js';

export interface DirectOptions {
  /** At most this much of the answer is read (64 KiB): the status, and the start kept with the attempt. */
  maxAnswerBytes?: number;
  /** For tests of the transport itself against a local receiver; never in the server. */
  allowPrivate?: boolean;
  resolve?: (host: string) => Promise<LookupAddress[]>;
}

/** Direct delivery's answer may also be: this host is local after all, use the relay. */
export type DirectResult = AttemptResult | { reroute: 'relay' };

const resolveAll = (host: string) =>
  new Promise<LookupAddress[]>((resolve, reject) =>
    dnsLookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

/**
 * POST over the network (INTERFACE.md §7): no redirects followed (a 3xx is a
 * failed attempt), at most 64 KiB of the answer read, aborted with the
 * attempt's signal. The host name is resolved first and the connection made
 * to that address: a name that resolves to a local or private address is
 * sent through the relay instead, and cannot be re-pointed between the
 * check and the connection.
 */
export async function sendDirect(request: WebhookRequest, options: DirectOptions = {}): Promise<DirectResult> {
  const url = new URL(request.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: LookupAddress[];
  try {
    addresses = await (options.resolve ?? resolveAll)(host);
  } catch (error) {
    return { error: `cannot resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
  }
  if (addresses.length === 0) return { error: `cannot resolve ${host}` };
  if (!options.allowPrivate && addresses.some((a) => isPrivateAddress(a.address))) return { reroute: 'relay' };
  const pinned = addresses[0]!;
  const maxBytes = options.maxAnswerBytes ?? 64 * 1024;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;

  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (!settled) {
        settled = true;
        resolve(result);
      }
    };
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        signal: request.signal,
        lookup: (_hostname, _options, callback) =>
          (callback as (e: null, a: string, f: number) => void)(null, pinned.address, pinned.family),
      },
      (res) => {
        let read = 0;
        const excerpt = new AnswerExcerpt();
        const answered = () => finish({ status: res.statusCode!, body: excerpt.text() });
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          excerpt.add(chunk);
          if (read >= maxBytes) {
            // Enough: the status is known; do not take more of a large answer.
            answered();
            res.destroy();
          }
        });
        res.on('end', answered);
        res.on('error', answered);
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish({
        error: request.signal.aborted
          ? `timed out after ${ATTEMPT_TIMEOUT_MS} ms`
          : `${error.code ?? 'error'}: ${error.message}`,
      }),
    );
    req.end(request.body);
  });
}
