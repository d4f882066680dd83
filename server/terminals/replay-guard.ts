import type { Account } from '../accounts/account.js';
import type { IndexDeclaration } from '../store/store.js';
import type { TerminalRecord } from './terminal.js';
import type { ClaimedWrite, SignedWrite } from '../store/pg-store.js';
import type { Store, StoredRecord } from '../store/store.js';
import { ReplayCache } from './replay-cache.js';

/**
 * What the guard says of a signature: new (now remembered), already
 * accepted, or made before this server process started while it cannot
 * know what the process before it accepted (it stopped without saying).
 */
export type ReplayVerdict = 'new' | 'replayed' | 'before-restart';

/** A check that also read the terminal and its account as they are now, in the same step. */
export interface CheckedAndRead {
  verdict: ReplayVerdict;
  terminal?: TerminalRecord;
  account?: Account;
}

/** A claim to make with a request's own write: the signature, what the record written was built from, and the write. */
export interface ClaimWithWrite {
  claim: { key: string; expiresAt: number; now: number; serial: string };
  /** The terminal and its account's clock the record was built from; the write happens only while they are still so. */
  expected: { terminal: TerminalRecord; clockOffsetMs: number };
  write: SignedWrite;
}

/** What a check made with the request's write did (see PgStore.claimSignatureAndWrite). */
export type CheckedWrite = ClaimedWrite<TerminalRecord, Account, StoredRecord>;

/** Remembers accepted POS signatures for as long as a replay of them could be fresh. */
export interface ReplayGuard {
  check(key: string, signedAt: number, expiresAt: number, now: number): Promise<ReplayVerdict>;
  /**
   * check(), reading the terminal `serial` and its account in the same
   * step: offered where that step is a round trip to a shared store, so
   * that a request needs one before its own work.
   */
  checkAndRead?(key: string, signedAt: number, expiresAt: number, now: number, serial: string): Promise<CheckedAndRead>;
  /** Offered with checkAndRead: the check and the request's one write in a single step, so that the claim costs no round trip of its own. */
  checkAndWrite?(write: ClaimWithWrite): Promise<CheckedWrite>;
  /** Keeps what a restart needs; called once requests have stopped, before the store closes. */
  save?(now: number): Promise<void>;
}

const SAVED = ['replay_window', 'saved'] as const;
/** Where signatures dated ahead of the server's clock are kept, one record each (the collection PostgreSQL keeps every signature in). */
const AHEAD = 'pos_signatures';

/**
 * How far ahead of the server's clock a signature may be dated and still
 * be covered, after a crash, by refusing what is dated before the start
 * plus this. Further ahead, it is written to the store before it is
 * accepted. A second: terminals whose clocks run less than that ahead cost
 * no write, and after a crash a request signed in the first second from the
 * start is refused once (it is signed anew on retry).
 */
export const AHEAD_GRACE_MS = 1_000;
const SWEEP_EVERY_MS = 60_000;
const SWEEP_BATCH = 256;

/**
 * One process on the embedded store: accepted signatures live in memory
 * (no write per request, GETs included), and survive a restart as follows.
 * A clean stop saves the ones still fresh as one record, which the next
 * process loads (and deletes) before it answers its first POS request.
 *
 * After a crash nothing was saved. A signature accepted at server time s
 * and dated t is covered by one of two rules:
 * - t ≤ s + AHEAD_GRACE_MS: since the restart comes after s, t is before
 *   the start plus the grace, and everything dated so is refused (until it
 *   would be stale anyway) as possibly accepted by the process that crashed;
 * - t further ahead (the tolerance allows up to 300 s): it was written to
 *   the store, durably, before it was accepted, and every start loads those
 *   still fresh.
 * So no signature accepted before a crash is accepted again after it,
 * wherever in the tolerance window its timestamp lies. Clients sign each
 * attempt anew, so a retry passes. A store without terminals at start
 * cannot have accepted any signature, so it refuses nothing.
 */
export function restartSafeReplayGuard(store: Store, windowMs: number, startedAt: number): ReplayGuard {
  const cache = new ReplayCache(windowMs);
  // Nothing is refused for its date unless the start finds it must be.
  let refuseSignedBefore = Number.NEGATIVE_INFINITY;
  let lastSweep = startedAt;
  const ready = (async () => {
    const saved = await store.get<{ entries: Array<[string, number]> }>(...SAVED);
    // The range spares reading what has expired (remember() would skip it anyway).
    // Stryker disable next-line ObjectLiteral,ArithmeticOperator: what is read beyond the range is skipped, unseen
    const ahead = await store.list<{ key: string; expires_at: number }>(AHEAD, { range: { field: 'expires_at', min: startedAt + 1 } });
    cache.remember(ahead.map((record) => [record.key, record.expires_at] as const), startedAt);
    if (saved) {
      cache.remember(saved.entries, startedAt);
      await store.transact((tx) => tx.delete(...SAVED)); // a later crash must not find it again
    } else if ((await store.count('terminals')) > 0) {
      refuseSignedBefore = startedAt + AHEAD_GRACE_MS;
    }
  })();
  ready.catch(() => undefined); // awaited, and so reported, by the first request that needs it

  /** Deletes signatures kept for being ahead once they have expired, a bounded batch at a time. */
  const sweep = async (now: number) => {
    const expired = await store.list<{ key: string }>(AHEAD, { range: { field: 'expires_at', max: now }, limit: SWEEP_BATCH });
    // Stryker disable next-line ConditionalExpression,EqualityOperator: only spares an empty transaction
    if (expired.length > 0) await store.transact((tx) => expired.forEach((record) => tx.delete(AHEAD, record.key)));
  };

  return {
    async check(key, signedAt, expiresAt, now) {
      await ready;
      if (signedAt < refuseSignedBefore) return 'before-restart';
      if (cache.checkAndRemember(key, expiresAt, now)) return 'replayed';
      // Durable before the request is answered: a crash right after must still know it.
      if (signedAt > now + AHEAD_GRACE_MS) await store.transact((tx) => tx.put(AHEAD, key, { key, expires_at: expiresAt }));
      if (now - lastSweep > SWEEP_EVERY_MS) {
        lastSweep = now;
        void sweep(now).catch(() => undefined); // a sweep missed is done at the next
      }
      return 'new';
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
  claimSignatureAndRead(key: string, expiresAt: number, now: number, serial: string): Promise<{ verdict: 'new' | 'replayed'; terminal?: TerminalRecord; account?: Account }>;
  claimSignatureAndWrite(claim: ClaimWithWrite['claim'], expected: ClaimWithWrite['expected'], write: SignedWrite): Promise<CheckedWrite>;
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
  const sweepNowAndThen = (now: number) => {
    if (now - lastSweep > 60_000) {
      lastSweep = now;
      void store.sweepSignatures(now).catch(() => undefined); // a sweep missed is done at the next
    }
  };
  return {
    async check(key, _signedAt, expiresAt, now) {
      const verdict = await store.claimSignature(key, expiresAt, now);
      sweepNowAndThen(now);
      return verdict;
    },
    async checkAndRead(key, _signedAt, expiresAt, now, serial) {
      const checked = await store.claimSignatureAndRead(key, expiresAt, now, serial);
      sweepNowAndThen(now);
      return checked;
    },
    async checkAndWrite({ claim, expected, write }) {
      const checked = await store.claimSignatureAndWrite(claim, expected, write);
      sweepNowAndThen(claim.now);
      return checked;
    },
  };
}
