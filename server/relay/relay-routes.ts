import { randomUUID } from 'node:crypto';
import type { OperationHandlers } from '../http/operation.js';
import { withAttemptLimit } from '../webhooks/ladder.js';
import type { Store } from '../store/store.js';
import type { RelayHub } from './relay-hub.js';
import { noRelayYet, type RelayState } from './relay-state.js';

/**
 * POST /control/relay/deliveries: one request, built by the caller, through
 * the account's relay to its local receiver, under the attempt limit of a
 * webhook. The receiver grader (svc-contracts receiver --via-relay) uses it
 * so that a receiver on an integrator's machine is graded along the path a
 * demo's deliveries take.
 */
export function relayHandlers(relay: RelayHub, store: Store): OperationHandlers {
  return {
    // GET /console/relay: the account's relay as the console shows it.
    getConsoleRelay: async ({ account }, ctx) => {
      const accountId = account.account_id;
      const state = (await store.get<RelayState>('relay_states', accountId)) ?? noRelayYet(accountId);
      const silentMs = relay.silentForMs(accountId);
      const { account_id: _account, ...shown } = state;
      ctx.body = { ...shown, last_heard_ms_ago: silentMs };
    },
    sendThroughRelay: async ({ account, body: { headers, body } }, ctx) => {
      const started = performance.now();
      const result = await withAttemptLimit((signal) =>
        relay.sendUnplaced({
          account_id: account.account_id,
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
