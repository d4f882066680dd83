import type { Test } from 'tap';
import type { Store } from '../store.js';

/**
 * Opens a store; `reopen` closes nothing itself but must open a new store
 * over the same data after the previous one was closed.
 */
export interface StoreFactory {
  open(): Promise<Store>;
}

/** A contract case: a test of its own with a store opened for it (and a factory to open it again). */
export type WithStore = (name: string, body: (t: Test, store: Store, factory: StoreFactory) => Promise<void>) => void;
