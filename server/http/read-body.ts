import type { Middleware } from 'koa';
import { MalformedJsonError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors.js';
import type { AppState } from './context.js';

/**
 * Reads the request body as bytes, refusing more than `limitBytes` as soon
 * as the declared or received length passes it. The bytes are kept on
 * `ctx.state.rawBody` because POS signatures are computed over them.
 */
export function readBody(limitBytes: number): Middleware<AppState> {
  return async (ctx, next) => {
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > limitBytes) {
      ctx.set('Connection', 'close');
      throw new PayloadTooLargeError(limitBytes);
    }
    const chunks: Buffer[] = [];
    let received = 0;
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      received += chunk.length;
      if (received > limitBytes) {
        ctx.set('Connection', 'close');
        throw new PayloadTooLargeError(limitBytes);
      }
      chunks.push(chunk);
    }
    ctx.state.rawBody = Buffer.concat(chunks);
    await next();
  };
}

/** Parses raw body bytes by media type; an empty body is `undefined`. */
export function parseBody(raw: Buffer, contentType: string, accepted: string[]): unknown {
  if (raw.length === 0) return undefined;
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  if (!accepted.includes(mediaType)) throw new UnsupportedMediaTypeError(mediaType, accepted);
  const text = raw.toString('utf8');
  if (mediaType === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(text));
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new MalformedJsonError((error as Error).message);
  }
}
