import { DuplicateKeyError } from '../errors.js';
import type { Store } from '../store/store.js';
import { ReplayCache } from './replay-cache.js';

/** Remembers accepted POS signatures for as long as a replay of them could be fresh. */
export interface ReplayGuard {
  /** True when `key` was already accepted and has not expired; records it otherwise. */
  checkAndRemember(key: string, expiresAt: number, now: number): Promise<boolean>;
}

/** One process: the bounded in-memory cache. */
export function memoryReplayGuard(windowMs: number): ReplayGuard {
  const cache = new ReplayCache(windowMs);
  return { checkAndRemember: async (key, expiresAt, now) => cache.checkAndRemember(key, expiresAt, now) };
}

/**
 * Several instances on one database: accepted signatures are records, so a
 * signature accepted by one instance is a replay on every other. Expired
 * records are swept as new ones come, keeping the table to one window.
 */
export function storeReplayGuard(store: Store): ReplayGuard {
  let lastSweep = 0;
  return {
    async checkAndRemember(key, expiresAt, now) {
      try {
        await store.transact(async (tx) => {
          const known = await tx.get<{ expires_at: number }>('pos_signatures', key);
          if (known && known.expires_at > now) throw new DuplicateKeyError('pos_signatures', key);
          if (known) tx.put('pos_signatures', key, { key, expires_at: expiresAt });
          else tx.insert('pos_signatures', key, { key, expires_at: expiresAt });
        });
      } catch (error) {
        if (error instanceof DuplicateKeyError) return true;
        throw error;
      }
      if (now - lastSweep > 60_000) {
        lastSweep = now;
        void store
          .transact(async (tx) => {
            for (const record of await tx.list<{ expires_at: number; key: string }>('pos_signatures', { range: { field: 'expires_at', max: now } })) tx.delete('pos_signatures', record.key);
          })
          .catch(() => undefined);
      }
      return false;
    },
  };
}
