import type { IndexDeclaration, Transaction } from '../store/store.js';

// What the console shows of an account's relay: whether one is connected
// and since when, the cursor it came with, and what was resumed for it.
// One small record per account, written with the trace entries of the
// same moments (connected, resumed, closed), so any instance reads it.

export interface RelayState {
  [field: string]: unknown;
  account_id: string;
  connected: boolean;
  /** When the current (or last) relay connected, on the account's clock. */
  connected_since: string | null;
  /** The cursor it connected with; null for a first connection. */
  cursor: number | null;
  closed_at: string | null;
  close_code: number | null;
  last_resume: { at: string; after: number; count: number; left_out: number } | null;
  /** Deliveries resumed for this account, all connections together. */
  resumed_total: number;
}

export const relayStateIndexes: IndexDeclaration[] = [{ equals: ['account_id'] }];

/** An account whose relay never connected. */
export const noRelayYet = (accountId: string): RelayState => ({
  account_id: accountId,
  connected: false,
  connected_since: null,
  cursor: null,
  closed_at: null,
  close_code: null,
  last_resume: null,
  resumed_total: 0,
});

/** The account's relay state changed by `change`, in the transaction `tx`. */
export async function updateRelayState(
  tx: Pick<Transaction, 'get' | 'put'>,
  accountId: string,
  change: (state: RelayState) => Partial<RelayState>,
): Promise<void> {
  const state = (await tx.get<RelayState>('relay_states', accountId)) ?? noRelayYet(accountId);
  tx.put('relay_states', accountId, { ...state, ...change(state) });
}
