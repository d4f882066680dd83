import { jsonAnswer, type ProxiedAnswer, type ProxiedRequest } from '../mutating-proxy.js';
import type { JsonAnswer } from '../../json-answer.js';

// What the mutations share: how they recognise a request, write an error
// answer, and remember or rewrite what answers show.

export const is = (request: ProxiedRequest, method: string, pattern: RegExp) =>
  request.method === method && pattern.test(request.url.pathname);
export const error = (answer: ProxiedAnswer, status: number, code: string, extra: Record<string, unknown> = {}) =>
  jsonAnswer.write(answer, { message: `mutated: ${code}`, code, ...extra }, status);
export const COMMIT = /\/pos-terminals\/[^/]+\/transactions\/[^/]+\/commit$/;
export const VOID_COMMIT = /\/transactions\/[^/]+\/invalidation\/commit$/;
export const INVALIDATION = /\/merchants\/[^/]+\/transactions\/[^/]+\/invalidation$/;
export const SETTLEMENTS_POST = /^\/api\/v1\/pos-terminals\/[^/]+\/settlements$/;
export const SETTLEMENTS_GET = /^\/api\/v1\/merchants\/[^/]+\/pos-terminals\/[^/]+\/settlements$/;
export const SESSION = /^\/api\/v1\/ext\/payment-sessions\/(?!requests)[^/]+$/;
export const OUTCOME = /^\/(control|__test__)\/sessions\/[^/]+\/outcome$/;

/** Remembers each order's status from every answer that shows one. */
export function noteOrders(answer: ProxiedAnswer, memory: Map<string, unknown>): void {
  const data = jsonAnswer.read(answer)?.data;
  for (const order of Array.isArray(data) ? data : data ? [data] : [])
    if (order?.orderId && order?.status) memory.set(`order:${order.orderId}`, order.status);
}

/** Trace entries of an answer of GET /console/trace, rewritten in place. */
export function rewriteTrace(
  answer: ProxiedAnswer,
  rewrite: (entries: Array<Record<string, JsonAnswer>>) => void,
): void {
  const body = jsonAnswer.read(answer);
  if (!Array.isArray(body?.data)) return;
  rewrite(body.data);
  jsonAnswer.write(answer, body);
}
