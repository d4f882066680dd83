import type { Logger } from '../log.js';
import type { BusMessage } from '../store/store.js';
import type { Store } from '../store/store.js';
import { ATTEMPT_TIMEOUT_MS, withAttemptLimit } from '../webhooks/ladder.js';
import type { AttemptResult, WebhookRequest } from '../webhooks/transport.js';

const CHANNEL = 'relay';

/** Where an account's relay is connected, so any instance can route to it. */
type RelayRoute = {
  account_id: string;
  instance: string;
  connected_at: string;
};

/** What the link needs of the local hub. */
export interface LocalRelays {
  /** Sends over this instance's own connection for the account, if there is one. */
  sendLocal(request: WebhookRequest): Promise<AttemptResult> | null;
  /** This instance's connection for the account right now, as a handle (undefined when there is none). */
  connectionOf(accountId: string): object | undefined;
  /** A newer relay for the account connected to another instance: close that connection of ours, if it is still the account's (one relay per key). */
  replacedElsewhere(accountId: string, connection: object): void;
}

type Call = Omit<WebhookRequest, 'signal'>;

/**
 * Relayed deliveries between instances sharing a database: an instance
 * that claimed a delivery whose account's relay is connected to another
 * instance asks that one over the bus, and gets the local receiver's status
 * back. Which instance holds which account's relay is a record in the store.
 */
export class RelayLink {
  private readonly waiting = new Map<string, (result: AttemptResult) => void>();
  private nextCall = 0;
  private started: Promise<void> | null = null;

  constructor(
    private readonly store: Store,
    private readonly instance: string,
    private readonly local: LocalRelays,
    private readonly log: Logger,
  ) {}

  /** Listens to the other instances; resolves once listening. */
  start(): Promise<void> {
    this.started ??= this.store.bus.subscribe(CHANNEL, (message) => this.received(message)).then(() => undefined);
    return this.started;
  }

  /**
   * A relay for the account is connecting here: the route points here from
   * now on (written before the WebSocket opens, so routes are written in the
   * order relays connect), and the other instances are told to check theirs.
   */
  async claim(accountId: string, at: string): Promise<void> {
    const route: RelayRoute = { account_id: accountId, instance: this.instance, connected_at: at };
    await this.store.transact((tx) => tx.put('relay_routes', accountId, route));
  }

  async announce(accountId: string): Promise<void> {
    await this.store.bus.publish(CHANNEL, { type: 'connected', account_id: accountId, instance: this.instance });
  }

  /** This instance's relay for the account is gone: the route goes too, unless a newer one replaced it. */
  async disconnected(accountId: string): Promise<void> {
    await this.store.transact(async (tx) => {
      const route = await tx.get<RelayRoute>('relay_routes', accountId);
      if (route?.instance === this.instance) tx.delete('relay_routes', accountId);
    });
  }

  /** Sends through the instance holding the account's relay; never throws. */
  async send(request: WebhookRequest): Promise<AttemptResult> {
    let route: RelayRoute | undefined;
    try {
      route = await this.store.get<RelayRoute>('relay_routes', request.account_id);
    } catch (error) {
      return { error: `could not look up the relay: ${(error as Error).message}` };
    }
    if (!route || route.instance === this.instance) return { error: 'no relay connected for this account' };
    const call_id = `${this.instance}:${++this.nextCall}`;
    return new Promise<AttemptResult>((resolve) => {
      const done = (result: AttemptResult) => {
        this.waiting.delete(call_id);
        request.signal.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const onAbort = () =>
        done({
          error: `timed out after ${ATTEMPT_TIMEOUT_MS} ms waiting for the relay (connected to another instance)`,
        });
      if (request.signal.aborted) return onAbort();
      request.signal.addEventListener('abort', onAbort);
      this.waiting.set(call_id, done);
      const { signal: _signal, ...call } = request;
      this.store.bus
        .publish(CHANNEL, { type: 'call', call_id, target: route!.instance, caller: this.instance, request: call })
        .catch((error: Error) => done({ error: `could not reach the relay's instance: ${error.message}` }));
    });
  }

  private received(message: BusMessage): void {
    if (message.type === 'result' && message.caller === this.instance) {
      this.waiting.get(String(message.call_id))?.(message.result as AttemptResult);
      return;
    }
    if (message.type === 'call' && message.target === this.instance) {
      void this.answer(String(message.call_id), String(message.caller), message.request as Call);
      return;
    }
    if (message.type === 'connected' && message.instance !== this.instance)
      void this.yieldIfRouteMoved(String(message.account_id));
  }

  /**
   * One relay per key: the route says which relay is the newest; a relay
   * here that no longer has it goes. Only a connection that was here before
   * the route was read can be judged by it: its claim was committed before
   * the read, so a route naming another instance is newer than it. A relay
   * that connects here while the read is under way claimed after it, maybe
   * after the route it returns, and must not be closed on that route's word
   * (under load the read took long enough for the newer relay to arrive and
   * be closed in the older one's place).
   */
  private async yieldIfRouteMoved(accountId: string): Promise<void> {
    const connection = this.local.connectionOf(accountId);
    if (!connection) return;
    try {
      const route = await this.store.get<RelayRoute>('relay_routes', accountId);
      if (route && route.instance !== this.instance) this.local.replacedElsewhere(accountId, connection);
    } catch (error) {
      this.log.warn('could not check where a relay is connected', {
        account_id: accountId,
        error: (error as Error).message,
      });
    }
  }

  private async answer(call_id: string, caller: string, call: Call): Promise<void> {
    const result = await withAttemptLimit(
      async (signal): Promise<AttemptResult> =>
        (await this.local.sendLocal({ ...call, signal })) ?? { error: 'no relay connected for this account' },
    );
    await this.store.bus.publish(CHANNEL, { type: 'result', call_id, caller, result }).catch((error: Error) => {
      this.log.warn('could not answer a relayed delivery to its instance', { call_id, error: error.message });
    });
  }
}
