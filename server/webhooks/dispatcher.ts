import { signWebhook } from '../../contracts/webhook-signature.js';
import type { Account } from '../accounts/account.js';
import { accountNow, iso } from '../clock.js';
import { appError } from '../errors.js';
import { FaultLog } from '../fault-log.js';
import type { EventSink, OutboxEvent } from '../sessions/events.js';
import type { DeliveryRecord } from '../clock/delivery-record.js';
import { sendDirect } from './direct-transport.js';
import { withAttemptLimit } from './ladder.js';
import { attemptHeaders, recordAttempt, type Signing } from './attempt-record.js';
import { giveDueTimes, PASS_LIMIT, promoteNext, QUEUED, realDue, sessionHead } from '../clock/due-times.js';
import { Pacer } from './pacer.js';
import { routeWebhook } from './routing.js';
import { Turns } from './turns.js';
import type { AttemptOutcome, DispatcherDeps } from './dispatcher-deps.js';
import type { Transaction } from '../store/store.js';
import { failedEvents } from './failed-events.js';
import type { AttemptResult, WebhookRequest } from './transport.js';

/** Resends one "resend the failed" call makes at most (each may take up to the 5 s attempt limit). */
const RESEND_FAILED_LIMIT = 10;

/** A loopback delivery is answered in process: nothing to abort. */
const NEVER_ABORTED = new AbortController().signal;

/**
 * Delivers the outbox (INTERFACE.md §7): each pending delivery is attempted when
 * due on its account's clock, signed with the event's own timestamp, routed
 * (loopback, relay or direct), and its result stored with its trace entry in
 * one transaction. Failures climb the ladder from the end of the attempt; a
 * 2xx closes the delivery. Events of one session go strictly in order: a
 * later one waits until the earlier is delivered or given up. Pending
 * deliveries live in the store, so a restart resumes them.
 */
export class WebhookDispatcher implements EventSink {
  private running: Promise<number> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private kicked = false;
  private paused = false;
  private readonly pacer: Pacer | null;
  private readonly turns = new Turns();
  /** A pass that fails (the database away) is logged once, and again when passes work; the timer keeps trying. */
  private readonly faults: FaultLog;
  /** Once a pass found no delivery without a due time, none can appear (this version writes them all). */
  private undatedGivenDueTimes = false;

  constructor(private readonly deps: DispatcherDeps) {
    this.pacer = deps.maxPerSecond ? new Pacer(deps.maxPerSecond) : null;
    this.faults = new FaultLog(deps.log, 'delivering webhooks');
  }

  emitted(events: readonly OutboxEvent[]): void {
    if (events.length > 0) this.kick();
  }

  /** Stops attempting deliveries (they stay pending, in the store) until resume(). */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.kick();
  }

  /** Attempts what is due soon, off the caller's path. */
  kick(): void {
    if (this.kicked || this.paused) return;
    this.kicked = true;
    setImmediate(() => {
      this.kicked = false;
      void this.faults.run(() => this.runDue());
    });
  }

  /** Attempts every delivery due now, until none is; answers how many attempts were made. */
  runDue(): Promise<number> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const run = (async () => {
      let total = 0;
      do {
        this.again = false;
        total += await this.pass();
      } while (this.again);
      return total;
    })().finally(() => {
      this.running = null;
    });
    this.running = run;
    return run;
  }

  start(intervalMs = 100): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.kick(), intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and new attempts; resolves once the attempts in flight are recorded. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.paused = true;
    await this.running?.catch(() => undefined);
  }

  /**
   * A new attempt now, with the same idempotency key and a fresh timestamp
   * and signature; to `url` when one is given (the session's webhook_url
   * stays as it is), routed by the same rules as any delivery. `resumed`:
   * the relay makes it again for a client that missed it, and says so.
   */
  async resend(
    account: Account,
    eventId: string,
    url?: string,
    how: { resumed?: boolean } = {},
  ): Promise<AttemptOutcome> {
    const event = await this.deps.store.get<OutboxEvent>('events', eventId);
    if (!event || event.account_id !== account.account_id) throw appError('NOT_FOUND', `event ${eventId}`);
    const timestamp = iso(accountNow(this.deps.clock, account));
    const signature = signWebhook(account.keys[0]!.webhook_secret, timestamp, event.body);
    return this.attempt(url === undefined ? event : { ...event, webhook_url: url }, account, {
      timestamp,
      signature,
      manual: true,
      ...(how.resumed ? { resumed: true } : {}),
    });
  }

  /** What resendFailed would take now: see failedEvents. */
  failedEvents(account: Account, sessionId: string | undefined, limit = RESEND_FAILED_LIMIT) {
    return failedEvents(this.deps.store, account.account_id, sessionId, limit);
  }

  /** Resends the failed events (failedEvents), at most `limit` a call; `more` says to call again. */
  async resendFailed(
    account: Account,
    sessionId: string | undefined,
    limit = RESEND_FAILED_LIMIT,
  ): Promise<{ resent: AttemptOutcome[]; more: boolean }> {
    const { event_ids: failed, more } = await this.failedEvents(account, sessionId, limit);
    const resent: AttemptOutcome[] = [];
    for (const eventId of failed) resent.push(await this.resend(account, eventId));
    return { resent, more };
  }

  private async pass(): Promise<number> {
    if (this.paused) return 0;
    const { store, clock } = this.deps;
    await this.giveUndatedDeliveriesDueTimes();
    // Only session heads have a real due time (due-times.ts): the walk examines what is due, nothing else.
    const listed = await store.list<DeliveryRecord>('deliveries', {
      range: { field: 'due_ms', max: clock.now() },
      orderBy: { field: 'due_ms', direction: 'asc' },
      limit: PASS_LIMIT,
    });
    const accounts = new Map<string, Account | undefined>();
    const due: Array<{ delivery: DeliveryRecord; account: Account }> = [];
    for (const delivery of listed) {
      if (!accounts.has(delivery.account_id))
        accounts.set(delivery.account_id, await store.get<Account>('accounts', delivery.account_id));
      const account = accounts.get(delivery.account_id);
      if (account && Date.parse(delivery.next_attempt_at) <= accountNow(clock, account))
        due.push({ delivery, account });
    }
    let next = 0;
    let attempted = 0;
    const worker = async () => {
      while (next < due.length && !this.paused) {
        const { delivery, account } = due[next++]!;
        await this.pacer?.take();
        // Requests that arrived meanwhile go first: one attempt starts per turn of the event loop.
        await this.turns.take();
        if (await this.attemptLeased(delivery, account)) attempted += 1;
      }
    };
    // Attempts of different sessions overlap (relayed ones mostly wait on the network);
    // the pacer keeps their rate below what would crowd API requests off the event loop.
    await Promise.all(Array.from({ length: Math.min(this.deps.concurrency ?? 16, due.length) }, worker));
    // A closed delivery may have made the next event of its session due now. (Deliveries
    // another instance holds are not retried at once: that would spin until it is done.)
    if (attempted > 0 || listed.length === PASS_LIMIT) this.again = true;
    return attempted;
  }

  /**
   * Deliveries stored by versions before due times have none: the index puts
   * them first, so one look per pass finds whether any are left, and each is
   * given its due time (or QUEUED behind its session's head) once.
   */
  private async giveUndatedDeliveriesDueTimes(): Promise<void> {
    if (this.undatedGivenDueTimes) return;
    // The session's first pending delivery is due at its time; the others wait behind it.
    await giveDueTimes<DeliveryRecord>(
      this.deps.store,
      'deliveries',
      (d) => d.event_id,
      async (tx, delivery, offsetMs) =>
        (await sessionHead(tx, delivery.session_id))?.event_id === delivery.event_id
          ? realDue(delivery.next_attempt_at, offsetMs)
          : QUEUED,
    );
    this.undatedGivenDueTimes = true;
  }

  /**
   * Attempts one due delivery unless another instance sharing the store
   * holds it or has attempted it since this pass listed it: each attempt is
   * made once, whatever the number of instances. Answers whether it did.
   */
  private async attemptLeased(listed: DeliveryRecord, account: Account): Promise<boolean> {
    const { store, clock } = this.deps;
    const id = listed.event_id;
    if ((await store.lease('deliveries', [id], this.deps.leaseMs ?? 15_000)).length === 0) return false;
    try {
      const delivery = await store.get<DeliveryRecord>('deliveries', id);
      if (
        !delivery ||
        delivery.attempts !== listed.attempts ||
        Date.parse(delivery.next_attempt_at) > accountNow(clock, account)
      )
        return false;
      const event = await store.get<OutboxEvent>('events', id);
      if (event)
        await this.attempt(event, account, { timestamp: event.created_at, signature: event.signature, manual: false });
      else {
        await store.transact(async (tx) => {
          const held = (await tx.get<Account>('accounts', account.account_id)) ?? account;
          tx.delete('deliveries', id);
          await promoteNext(tx, listed.session_id, held.clock_offset_ms);
        });
      }
      return true;
    } finally {
      await store.release('deliveries', [id]).catch((error: Error) =>
        this.deps.log.warn('could not release a webhook delivery; its lease will expire', {
          event_id: id,
          error: error.message,
        }),
      );
    }
  }

  private async attempt(event: OutboxEvent, account: Account, signing: Signing): Promise<AttemptOutcome> {
    const headers = attemptHeaders(event, signing);
    const started = performance.now();
    const routed = await this.route(event, headers, signing.resumed === true);
    const sent = { ...routed, headers, durationMs: Math.round(performance.now() - started) };
    return this.deps.store.transact((tx) => recordAttempt(tx, this.deps, event, account, signing, sent));
  }

  private async route(
    event: OutboxEvent,
    headers: Record<string, string>,
    resumed: boolean,
  ): Promise<{
    routing: AttemptOutcome['routing'];
    result: AttemptResult;
    record?: (tx: Transaction) => Promise<unknown>;
  }> {
    if (event.webhook_url === null) return { routing: 'none', result: { error: 'the session has no webhook_url' } };
    const routing =
      this.deps
        .ownOrigins()
        .map((origin) => routeWebhook(event.webhook_url!, origin, event.account_id))
        .find((r) => r.kind === 'loopback') ??
      routeWebhook(event.webhook_url, this.deps.ownOrigins()[0] ?? '', event.account_id);
    const request = (signal: AbortSignal): WebhookRequest => ({
      account_id: event.account_id,
      event_id: event.event_id,
      url: event.webhook_url!,
      headers,
      body: event.body,
      signal,
      ...(resumed ? { resumed: true } : {}),
    });
    if (routing.kind === 'loopback') {
      const { status, body, record } = this.deps.loopback(event.account_id, routing.receiver, request(NEVER_ABORTED));
      return { routing: 'loopback', result: { status, body }, record };
    }
    // The 5 s limit is armed only for what goes over the network, and disarmed once answered.
    return withAttemptLimit(async (signal) => {
      if (routing.kind === 'direct') {
        const result = await (this.deps.direct ?? sendDirect)(request(signal));
        if (!('reroute' in result)) return { routing: 'direct', result };
      }
      return { routing: 'relay', result: await this.deps.relay.send(request(signal)) };
    }, this.deps.signalAfter);
  }
}
