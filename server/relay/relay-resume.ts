import type { ResumeMessage } from '../../contracts/relay-messages.js';
import type { Account } from '../accounts/account.js';
import { accountNow, iso, type Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { trace } from '../trace/trace.js';
import type { OnRelayConnected } from './relay-hub.js';
import { missedDeliveries, positionBefore, relayHead } from './relay-positions.js';
import { updateRelayState } from './relay-state.js';

/** A first connection's backfill resends this many deliveries at most, oldest first; it says how many it left out. */
export const BACKFILL_LIMIT = 1000;

/** Version of the relay protocol's messages (docs/relay-protocol.md). */
export const RELAY_PROTOCOL = 1;

export interface ResumeDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  /** A new attempt of the event, through the relay, marked resumed (the dispatcher's resend). */
  resend: (account: Account, eventId: string) => Promise<unknown>;
}

/**
 * What a relay does when a client connects: tells it where it stands (a
 * `resume` message: the cursor to keep, the positions about to come again,
 * those still on their ladder), then attempts again, in order, every
 * delivery it missed: routed to the relay after its cursor (or, a first
 * connection's backfill, since a moment), ended without a 2xx. Each goes
 * with its idempotency key and body, and a fresh timestamp and signature,
 * as a manual resend does; the trace records the resume.
 */
export function relayResumer(deps: ResumeDeps): OnRelayConnected {
  const { store, clock } = deps;
  return async (account, start, send) => {
    const head = await relayHead(store, account.account_id);
    const after =
      start === null
        ? head
        : 'cursor' in start
          ? Math.min(start.cursor, head) // a cursor ahead of the sequence (the data was reset) starts at its head
          : await positionBefore(store, account.account_id, iso(accountNow(clock, account) - start.backfillMs));
    const limit = start !== null && 'backfillMs' in start ? BACKFILL_LIMIT : Infinity;
    const missed = await missedDeliveries(store, account.account_id, after, limit);
    const resume: ResumeMessage = {
      type: 'resume',
      v: RELAY_PROTOCOL,
      cursor: missed.through,
      up_to: missed.upTo,
      resending: missed.deliveries.map((d) => d.position),
      pending: missed.pending,
      left_out: missed.leftOut,
      from: missed.deliveries[0]?.at ?? null,
    };
    send(resume);
    if (start !== null || missed.deliveries.length > 0)
      await store.transact(async (tx) => {
        const current = (await tx.get<Account>('accounts', account.account_id)) ?? account;
        const at = iso(accountNow(clock, current));
        const count = missed.deliveries.length;
        trace(tx, account.account_id, 'relay.resumed', at, {
          after,
          count,
          through: missed.through,
          up_to: missed.upTo,
          left_out: missed.leftOut,
        });
        await updateRelayState(tx, account.account_id, (state) => ({
          last_resume: { at, after, count, left_out: missed.leftOut },
          resumed_total: state.resumed_total + count,
        }));
      });
    // One at a time, in order: a session's events keep theirs.
    for (const delivery of missed.deliveries) await deps.resend(account, delivery.event_id);
  };
}
