import type { Middleware } from 'koa';
import type { IncomingMessage } from 'node:http';
import { appError } from '../errors.js';
import { depthMessage, nestsDeeperThan } from './json-depth.js';
import type { AppState } from './context.js';

/**
 * How much of a refused body is read and thrown away so that the client
 * sees its 413. Closing a socket with unread bytes in it makes the kernel
 * send a reset, and a reset discards the answer the client had not read yet
 * ("fetch failed" instead of a 413). Past this much, the connection is cut.
 */
export const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * Reads the request body as bytes, refusing more than `limitBytes` as soon
 * as the declared or received length passes it. The bytes are kept on
 * `ctx.state.rawBody` because POS signatures are computed over them.
 */
export function readBody(limitBytes: number): Middleware<AppState> {
  return async (ctx, next) => {
    const headers = ctx.req.headers;
    const declared = Number(headers['content-length'] ?? 0);
    if (declared > limitBytes) {
      // Node discards an unread body once the answer is sent; past the drain limit, don't wait for it.
      if (declared > DRAIN_LIMIT_BYTES) ctx.set('Connection', 'close');
      throw appError('PAYLOAD_TOO_LARGE', limitBytes);
    }
    // HTTP/1.1: a request without content-length or transfer-encoding has no body.
    const hasBody = declared > 0 || headers['transfer-encoding'] !== undefined;
    ctx.state.rawBody = hasBody ? await readStream(ctx.req, limitBytes) : EMPTY;
    await next();
  };
}

const EMPTY = Buffer.alloc(0);

function readStream(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let refused = false;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received <= limitBytes) {
        chunks.push(chunk);
        return;
      }
      if (!refused) {
        refused = true;
        chunks.length = 0;
        reject(appError('PAYLOAD_TOO_LARGE', limitBytes));
      }
      // Keep reading and discarding, so the 413 reaches the client; a body that never ends is cut.
      if (received > DRAIN_LIMIT_BYTES) {
        cleanup();
        request.socket.destroy();
      }
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      request.removeListener('data', onData);
      request.removeListener('end', onEnd);
      request.removeListener('error', onError);
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
  });
}

/** Parses raw body bytes by media type; an empty body is `undefined`. */
export function parseBody(raw: Buffer, contentType: string, accepted: string[]): unknown {
  if (raw.length === 0) return undefined;
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  if (!accepted.includes(mediaType)) throw appError('UNSUPPORTED_MEDIA_TYPE', mediaType, accepted);
  const text = raw.toString('utf8');
  if (mediaType === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(text));
  if (nestsDeeperThan(text)) throw appError('VALIDATION_FAILED', [{ in: 'body', pointer: '', message: depthMessage }]);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw appError('MALFORMED_JSON', (error as Error).message);
  }
}
