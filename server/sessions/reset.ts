import type { Account } from '../accounts/account.js';
import { iso, type Clock } from '../clock.js';
import type { Store } from '../store/store.js';
import { trace } from '../trace/trace.js';
import { keyOf } from './record-keys.js';

/** What an account owns, by collection and the field that names the owner. */
const owned: Array<[collection: string, field: string, owner: (account: Account) => string]> = [
  ['sessions', 'account_id', (a) => a.account_id],
  ['deliveries', 'account_id', (a) => a.account_id],
  ['trace', 'account_id', (a) => a.account_id],
  ['events', 'account_id', (a) => a.account_id],
  ['webhook_outcomes', 'account_id', (a) => a.account_id],
  // Positions go with their deliveries; the account's sequence stays, so a relay's cursor never points ahead of it.
  ['relay_deliveries', 'account_id', (a) => a.account_id],
  ['relay_states', 'account_id', (a) => a.account_id],
  ['schedules', 'account_id', (a) => a.account_id],
  ['batches', 'account_id', (a) => a.account_id],
  ['stops', 'account_id', (a) => a.account_id],
  ['agreements', 'account_id', (a) => a.account_id],
  ['partners', 'account_id', (a) => a.account_id],
  ['split_agreements', 'account_id', (a) => a.account_id],
  ['split_links', 'account_id', (a) => a.account_id],
  ['terminals', 'account_id', (a) => a.account_id],
  ['orders', 'account_id', (a) => a.account_id],
];

/**
 * POST /control/reset: the account back to its just-created state, in one
 * transaction. Only the caller's records go; its keys and tokens stay, its
 * clock returns to the server's.
 */
export async function resetAccount(store: Store, clock: Clock, accountId: string): Promise<number> {
  return store.transact(async (tx) => {
    const account = (await tx.get<Account>('accounts', accountId))!;
    let deleted = 0;
    // Settlements through their terminals (a terminal never changes merchant), before the terminals go.
    for (const terminal of await tx.list<{ serialNumber: string }>('terminals', { where: { account_id: accountId } }))
      for (const settlement of await tx.list<Record<string, unknown>>('settlements', {
        where: { terminal: terminal.serialNumber },
      })) {
        tx.delete('settlements', keyOf('settlements', settlement));
        deleted += 1;
      }
    for (const [collection, field, owner] of owned) {
      const keys = await tx.list<Record<string, unknown>>(collection, { where: { [field]: owner(account) } });
      for (const record of keys) {
        tx.delete(collection, keyOf(collection, record));
        deleted += 1;
      }
    }
    tx.put('accounts', accountId, { ...account, clock_offset_ms: 0 });
    trace(tx, accountId, 'control.reset', iso(clock.now()), { deleted });
    return deleted;
  });
}
