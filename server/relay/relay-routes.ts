import { randomUUID } from 'node:crypto';
import type { OperationHandlers } from '../http/bind-operations.js';
import { withAttemptLimit } from '../webhooks/ladder.js';
import type { RelayHub } from './relay-hub.js';

/**
 * POST /control/relay/deliveries: one request, built by the caller, through
 * the account's relay to its local receiver, under the attempt limit of a
 * webhook. The receiver grader (svc-contracts receiver --via-relay) uses it
 * so that a receiver on an integrator's machine is graded along the path a
 * demo's deliveries take.
 */
export function relayHandlers(relay: RelayHub): OperationHandlers {
  return {
    sendThroughRelay: async (ctx) => {
      const { headers, body } = ctx.state.body as { headers: Record<string, string>; body: string };
      const started = performance.now();
      const result = await withAttemptLimit((signal) =>
        relay.send({
          account_id: ctx.state.account!.account_id,
          event_id: `grader_${randomUUID()}`,
          url: 'relay:',
          headers,
          body,
          signal,
        }),
      );
      ctx.body = {
        status: 'status' in result ? result.status : null,
        error: 'error' in result ? result.error : null,
        duration_ms: Math.round(performance.now() - started),
      };
    },
  };
}
