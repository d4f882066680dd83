import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { AnswerExcerpt } from '../answer-excerpt.js';

/** The local receiver's status and the start of its answer, or why it could not be reached. */
export type ForwardResult = { status: number; body: string } | { error: string };

/**
 * POSTs relayed webhooks to the local receiver over kept-alive connections.
 * node:http rather than fetch: at a thousand deliveries a second, fetch's
 * web streams and abort signals cost the relay process more CPU than all
 * the rest of its work (measured: undici and its streams were 40 % of it).
 */
export function localForwarder(
  forwardTo: string,
  options: {
    timeoutMs?: number;
    /** Calls `onTimeout` after `ms` unless cancelled; tests fire it by hand. */ after?: (
      ms: number,
      onTimeout: () => void,
    ) => () => void;
  } = {},
): { forward: (headers: Record<string, string>, body: string) => Promise<ForwardResult>; close: () => void } {
  const target = new URL(forwardTo);
  const secure = target.protocol === 'https:';
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, maxSockets: 64 })
    : new HttpAgent({ keepAlive: true, maxSockets: 64 });
  const send = secure ? httpsRequest : httpRequest;
  const timeoutMs = options.timeoutMs ?? 5000;
  const after =
    options.after ??
    ((ms, onTimeout) => {
      const timer = setTimeout(onTimeout, ms);
      return () => clearTimeout(timer);
    });

  const forward = (headers: Record<string, string>, body: string) =>
    new Promise<ForwardResult>((resolve) => {
      // The exact bytes the simulator signed: the body travels as the text it was serialised to.
      const bytes = Buffer.from(body, 'utf8');
      const request = send(
        target,
        { method: 'POST', agent, headers: { ...headers, 'content-length': String(bytes.length) } },
        (response: IncomingMessage) => {
          // The start of the answer goes back with the status (the simulator keeps 2 KiB of it); the rest is read and dropped.
          const excerpt = new AnswerExcerpt();
          response.on('data', (chunk: Buffer) => excerpt.add(chunk));
          response.on('end', () => finish({ status: response.statusCode ?? 502, body: excerpt.text() }));
          response.on('error', (error) => finish({ error: error.message }));
        },
      );
      const cancel = after(timeoutMs, () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      const finish = (result: ForwardResult) => {
        cancel();
        resolve(result);
      };
      request.on('error', (error) => finish({ error: error.message }));
      request.end(bytes);
    });

  return { forward, close: () => agent.destroy() };
}
