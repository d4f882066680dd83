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
    const headers = ctx.req.headers;
    const declared = Number(headers['content-length'] ?? 0);
    if (declared > limitBytes) {
      ctx.set('Connection', 'close');
      throw new PayloadTooLargeError(limitBytes);
    }
    // HTTP/1.1: a request without content-length or transfer-encoding has no body.
    const hasBody = declared > 0 || headers['transfer-encoding'] !== undefined;
    ctx.state.rawBody = hasBody ? await readStream(ctx.req, limitBytes) : EMPTY;
    await next();
  };
}

const EMPTY = Buffer.alloc(0);

function readStream(stream: NodeJS.ReadableStream, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) {
        cleanup();
        reject(new PayloadTooLargeError(limitBytes));
        return;
      }
      chunks.push(chunk);
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
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });
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
