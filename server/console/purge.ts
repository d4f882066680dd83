import type { Account } from '../accounts/account.js';
import { accountNow, iso, type Clock } from '../clock.js';
import type { Store } from '../store/store.js';
import { promoteNext } from '../clock/due-times.js';
import { keyOf } from '../sessions/record-keys.js';

/** Simulator data, by collection and the field that dates it. */
const dated: Array<[collection: string, field: string]> = [
  ['sessions', 'created_at'],
  ['events', 'created_at'],
  ['trace', 'at'],
  ['batches', 'created_at'],
  ['stops', 'created_at'],
  ['agreements', 'created_at'],
  ['partners', 'created_at'],
  ['split_agreements', 'created_at'],
];

/**
 * Test data older than the lifetime on its account's clock is deleted
 * (INTERFACE.md §8): sessions with their
 * pending deliveries and schedules, events with their delivery outcomes,
 * trace, batches, stops and the catalog. Accounts, keys and tokens stay.
 * Answers how many records went.
 */
export async function purgeExpired(store: Store, clock: Clock, ttlDays: number, accountId?: string): Promise<number> {
  const accounts = accountId
    ? [await store.get<Account>('accounts', accountId)].filter((a): a is Account => a !== undefined)
    : await store.list<Account>('accounts');
  let deleted = 0;
  for (const account of accounts) {
    const cutoff = iso(accountNow(clock, account) - ttlDays * 86_400_000);
    deleted += await store.transact(async (tx) => {
      let count = 0;
      for (const [collection, field] of dated) {
        const old = await tx.list<Record<string, unknown>>(collection, {
          where: { account_id: account.account_id },
          range: { field, max: cutoff },
        });
        for (const record of old) {
          if (record[field] === cutoff) continue; // strictly older than the lifetime
          tx.delete(collection, keyOf(collection, record));
          count += 1;
          if (collection === 'sessions') {
            tx.delete('schedules', record.session_id as string);
          }
          if (collection === 'events') {
            tx.delete('deliveries', record.event_id as string);
            // A newer event of the session, still pending, is now its first: due in its turn.
            await promoteNext(tx, record.session_id as string, account.clock_offset_ms);
            tx.delete('webhook_outcomes', record.event_id as string);
            tx.delete('relay_deliveries', record.event_id as string);
          }
          if (collection === 'split_agreements') tx.delete('split_links', keyOf('split_links', record));
        }
      }
      return count;
    });
  }
  return deleted;
}
