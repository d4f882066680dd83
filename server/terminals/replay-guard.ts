import type { IndexDeclaration } from '../store/record-index.js';
import type { Store } from '../store/store.js';
import { ReplayCache } from './replay-cache.js';

/**
 * What the guard says of a signature: new (now remembered), already
 * accepted, or made before this server process started while it cannot
 * know what the process before it accepted (it stopped without saying).
 */
export type ReplayVerdict = 'new' | 'replayed' | 'before-restart';

/** Remembers accepted POS signatures for as long as a replay of them could be fresh. */
export interface ReplayGuard {
  check(key: string, signedAt: number, expiresAt: number, now: number): Promise<ReplayVerdict>;
  /** Keeps what a restart needs; called once requests have stopped, before the store closes. */
  save?(now: number): Promise<void>;
}

const SAVED = ['replay_window', 'saved'] as const;

/**
 * One process on the embedded store: accepted signatures live in memory
 * (no write per request, GETs included), and survive a restart as follows.
 * A clean stop saves the ones still fresh as one record, which the next
 * process loads (and deletes) before it answers its first POS request. After
 * a crash nothing was saved, so any signature made before this process
 * started may have been accepted by the one that crashed: those are refused
 * until they would be stale anyway (at most the tolerance window); clients
 * sign each attempt anew, so a retry passes. A store without terminals at
 * start cannot have accepted any signature, so it refuses nothing.
 */
export function restartSafeReplayGuard(store: Store, windowMs: number, startedAt: number): ReplayGuard {
  const cache = new ReplayCache(windowMs);
  let refuseSignedBefore: number | null = null;
  const ready = (async () => {
    const saved = await store.get<{ entries: Array<[string, number]> }>(...SAVED);
    if (saved) {
      cache.remember(saved.entries, startedAt);
      await store.transact((tx) => tx.delete(...SAVED)); // a later crash must not find it again
    } else if ((await store.count('terminals')) > 0) {
      refuseSignedBefore = startedAt;
    }
  })();
  ready.catch(() => undefined); // awaited, and so reported, by the first request that needs it
  return {
    async check(key, signedAt, expiresAt, now) {
      await ready;
      if (refuseSignedBefore !== null && signedAt < refuseSignedBefore) return 'before-restart';
      return cache.checkAndRemember(key, expiresAt, now) ? 'replayed' : 'new';
    },
    async save(now) {
      await ready;
      const entries = cache.live(now);
      if (entries.length > 0) await store.transact((tx) => tx.put(...SAVED, { entries, saved_at: now }));
    },
  };
}

/** Accepted signatures on a shared store, swept by expiry. */
export const signatureIndexes: IndexDeclaration[] = [{ equals: [], order: { field: 'expires_at', type: 'number' } }];

/** What a store shared by several instances offers for accepted signatures (PgStore). */
export interface SignatureClaims {
  claimSignature(key: string, expiresAt: number, now: number): Promise<ReplayVerdict & ('new' | 'replayed')>;
  sweepSignatures(now: number): Promise<void>;
}

/**
 * Several instances on one database: accepted signatures are records, so a
 * signature accepted by one instance is a replay on every other. Each
 * check is one statement; expired records are swept, in one statement on
 * their expiry index, at most once a minute, keeping the table to one window.
 */
export function storeReplayGuard(shared: Store): ReplayGuard {
  if (!('claimSignature' in shared)) throw new Error(`the ${shared.kind} store does not share accepted signatures between instances`);
  const store = shared as unknown as SignatureClaims;
  let lastSweep = 0;
  return {
    async check(key, _signedAt, expiresAt, now) {
      const verdict = await store.claimSignature(key, expiresAt, now);
      if (now - lastSweep > 60_000) {
        lastSweep = now;
        void store.sweepSignatures(now).catch(() => undefined); // a sweep missed is done at the next
      }
      return verdict;
    },
  };
}
