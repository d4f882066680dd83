import type { AccountService } from './accounts/account-service.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import { RelayHub } from './relay/relay-hub.js';
import { relayResumer } from './relay/relay-resume.js';
import type { Store } from './store/store.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { receiverAnswerBody, Receivers, receiverStatus } from './webhooks/receivers.js';

// The app's delivery parts, built together because each needs the others:
// the dispatcher delivers to the simulator's own receivers in process and
// through the relay to a laptop, and the relay resends what it missed.

/** How webhooks leave: the receivers of the simulator, the relay, and the dispatcher with its retry ladder. */
export function deliveryParts({
  store,
  clock,
  config,
  log,
  accounts,
  origins,
  instance,
  webhookSignalAfter,
}: {
  store: Store;
  clock: Clock;
  config: Config;
  log: Logger;
  accounts: AccountService;
  origins: Set<string>;
  instance: string | undefined;
  webhookSignalAfter: ((ms: number) => AbortSignal) | undefined;
}) {
  const receivers = new Receivers(store, clock);
  const relay = new RelayHub({ accounts, store, clock, log, instance, heartbeatMs: config.relayHeartbeatMs });
  const dispatcher = new WebhookDispatcher({
    store,
    clock,
    ladder: config.webhookLadder,
    concurrency: config.webhookConcurrency,
    maxPerSecond: config.webhookMaxPerSecond,
    leaseMs: config.webhookLeaseMs,
    ...(instance ? { instance } : {}),
    ownOrigins: () => [...origins],
    loopback: (accountId, receiver, request) => ({
      status: receiverStatus[receiver],
      body: receiverAnswerBody(receiver),
      record: (tx) =>
        receivers.record(tx, accountId, receiver, { rawBody: Buffer.from(request.body), headers: request.headers }),
    }),
    relay,
    log,
    ...(webhookSignalAfter ? { signalAfter: webhookSignalAfter } : {}),
  });
  relay.whenConnected(
    relayResumer({
      store,
      clock,
      log,
      resend: (account, eventId) => dispatcher.resend(account, eventId, undefined, { resumed: true }),
    }),
  );
  return { receivers, relay, dispatcher };
}
