import type { Account } from '../accounts/account.js';
import { accountNow, iso, type Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { trace } from '../trace/trace.js';
import { updateRelayState, type RelayState } from './relay-state.js';

/** What recording a relay event needs. */
export interface RelayRecording {
  store: Store;
  clock: Clock;
  log: Logger;
}

/**
 * A relay's connection or close, in the account's trace at its own clock's
 * time, with the relay state it leaves when given; a store that cannot
 * take it is logged, never thrown at the socket's handlers.
 */
export async function recordRelayEvent(
  { store, clock, log }: RelayRecording,
  account: Account,
  type: string,
  fields: Record<string, unknown>,
  state?: (at: string) => (previous: RelayState) => Partial<RelayState>,
): Promise<void> {
  try {
    await store.transact(async (tx) => {
      const current = (await tx.get<Account>('accounts', account.account_id)) ?? account;
      const at = iso(accountNow(clock, current));
      trace(tx, account.account_id, type, at, fields);
      if (state) await updateRelayState(tx, account.account_id, state(at));
    });
  } catch (error) {
    log.warn('could not record a relay event', { type, error: (error as Error).message });
  }
}
