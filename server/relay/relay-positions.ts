import type { Account } from '../accounts/account.js';
import { accountNow, iso, type Clock } from '../clock.js';
import type { IndexDeclaration, Store } from '../store/store.js';
import { deliveryState } from '../webhooks/delivery-state.js';

// Every delivery routed to the relay takes the next position of its
// account's relay sequence, once, the first time one of its attempts goes
// to the relay (connected or not). Positions are dense (1, 2, 3, … per
// account), so a client can tell a gap from the end. What a relay client
// missed is then a question with an answer: the positions after its cursor
// whose delivery never got a 2xx and whose ladder has ended.

/** A delivery's place in its account's relay sequence; keyed by event id. */
export interface RelayDelivery {
  [field: string]: unknown;
  account_id: string;
  event_id: string;
  position: number;
  /** When it was first routed to the relay, on the account's clock. */
  at: string;
}

/** The account's next position; keyed by account id. */
interface RelaySequence {
  [field: string]: unknown;
  account_id: string;
  next: number;
}

export const relayDeliveryIndexes: IndexDeclaration[] = [
  { equals: ['account_id'], order: { field: 'position', type: 'number' } },
  { equals: ['account_id'], order: { field: 'at', type: 'time' } },
];

/** The delivery's position, given now if it has none yet. */
export async function relayPosition(store: Store, clock: Clock, accountId: string, eventId: string): Promise<number> {
  const known = await store.get<RelayDelivery>('relay_deliveries', eventId);
  if (known) return known.position;
  return store.transact(async (tx) => {
    const placed = await tx.get<RelayDelivery>('relay_deliveries', eventId);
    if (placed) return placed.position;
    const account = await tx.get<Account>('accounts', accountId);
    const sequence = (await tx.get<RelaySequence>('relay_sequences', accountId)) ?? { account_id: accountId, next: 1 };
    tx.put('relay_sequences', accountId, { ...sequence, next: sequence.next + 1 });
    const at = iso(account ? accountNow(clock, account) : clock.now());
    tx.put('relay_deliveries', eventId, { account_id: accountId, event_id: eventId, position: sequence.next, at });
    return sequence.next;
  });
}

/** The last position the account's relay sequence has given (0 before the first). */
export async function relayHead(store: Store, accountId: string): Promise<number> {
  return ((await store.get<RelaySequence>('relay_sequences', accountId))?.next ?? 1) - 1;
}

/** The position just before the first delivery routed to the relay at `since` or later (the account's clock). */
export async function positionBefore(store: Store, accountId: string, since: string): Promise<number> {
  const [first] = await store.list<RelayDelivery>('relay_deliveries', {
    where: { account_id: accountId },
    range: { field: 'at', min: since },
    orderBy: { field: 'at', direction: 'asc' },
    limit: 1,
  });
  return first ? first.position - 1 : relayHead(store, accountId);
}

export interface Missed {
  /** Missed deliveries, in position order: each ended without a 2xx. */
  deliveries: RelayDelivery[];
  /** Every position up to this one was delivered, or is gone (purged, reset). */
  through: number;
  /** The last position looked at: between `through` and it, only `deliveries` and `pending` are still owed. */
  upTo: number;
  /** Positions whose ladder still runs: their attempts come by it. */
  pending: number[];
  /** Missed deliveries past `limit`, left out. */
  leftOut: number;
}

const PAGE = 200;

/**
 * The relay deliveries a client missed after its cursor: each without a 2xx
 * and with its ladder ended (one still on its ladder is attempted by it,
 * never twice), at most `limit` of them.
 */
export async function missedDeliveries(
  store: Store,
  accountId: string,
  after: number,
  limit = Infinity,
): Promise<Missed> {
  const deliveries: RelayDelivery[] = [];
  const pending: number[] = [];
  let through = after;
  let upTo = after;
  let leftOut = 0;
  let owing = false;
  for (let offset = 0; ; offset += PAGE) {
    const page = await store.list<RelayDelivery>('relay_deliveries', {
      where: { account_id: accountId },
      range: { field: 'position', min: after + 1 },
      orderBy: { field: 'position', direction: 'asc' },
      limit: PAGE,
      offset,
    });
    for (const delivery of page) {
      const state = await deliveryState(store, delivery.event_id);
      if (state === 'failed' && deliveries.length === limit) {
        // Past the limit: counted, and nothing beyond the first left out is vouched for.
        leftOut += 1;
        owing = true;
        continue;
      }
      if (state === 'failed') deliveries.push(delivery);
      if (state === 'pending') pending.push(delivery.position);
      if (state === 'failed' || state === 'pending') owing = true;
      if (!owing) through = delivery.position;
      if (leftOut === 0) upTo = delivery.position;
    }
    if (page.length < PAGE) break;
  }
  return { deliveries, through, upTo, pending, leftOut };
}
