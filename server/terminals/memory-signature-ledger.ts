import type { Account } from '../accounts/account.js';
import { basisHolds } from '../store/claim-steps.js';
import type { ClaimedWrite, Store } from '../store/store.js';
import { ReplayCache } from './replay-cache.js';
import { decidedOn, SIGNATURES, type ClaimedWriteResult, type ReplayVerdict, type SignatureClaim, type SignatureLedger } from './signature-ledger.js';
import type { TerminalRecord } from './terminal.js';

const SAVED = ['replay_window', 'saved'] as const;

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
 *
 * The terminal and its account are read from the store as it is now, and a
 * write is made through it once the verdict is in (all in memory: the
 * reads cost no I/O).
 */
export function memorySignatureLedger(store: Store, windowMs: number, startedAt: number): SignatureLedger {
  const cache = new ReplayCache(windowMs);
  // Nothing is refused for its date unless the start finds it must be.
  let refuseSignedBefore = Number.NEGATIVE_INFINITY;
  let lastSweep = startedAt;
  let loaded = false;
  const ready = (async () => {
    const saved = await store.get<{ entries: Array<[string, number]> }>(...SAVED);
    // The range spares reading what has expired (remember() would skip it anyway).
    // Stryker disable next-line ObjectLiteral,ArithmeticOperator: what is read beyond the range is skipped, unseen
    const ahead = await store.list<{ key: string; expires_at: number }>(SIGNATURES, { range: { field: 'expires_at', min: startedAt + 1 } });
    cache.remember(ahead.map((record) => [record.key, record.expires_at] as const), startedAt);
    if (saved) {
      cache.remember(saved.entries, startedAt);
      await store.transact((tx) => tx.delete(...SAVED)); // a later crash must not find it again
    } else if ((await store.count('terminals')) > 0) {
      refuseSignedBefore = startedAt + AHEAD_GRACE_MS;
    }
    loaded = true;
  })();
  ready.catch(() => undefined); // awaited, and so reported, by the first request that needs it

  /** The verdict, at once (no turn of the event loop) unless the start is still loading or the signature must be written first. */
  const verdict = (claim: SignatureClaim): ReplayVerdict | Promise<ReplayVerdict> => {
    if (!loaded) return ready.then(() => verdict(claim));
    const { key, signedAt, expiresAt, now } = claim;
    if (signedAt < refuseSignedBefore) return 'before-restart';
    if (cache.checkAndRemember(key, expiresAt, now)) return 'replayed';
    if (now - lastSweep > SWEEP_EVERY_MS) {
      lastSweep = now;
      void store.deleteUpTo(SIGNATURES, 'expires_at', now).catch(() => undefined); // a sweep missed is done at the next
    }
    // Durable before the request is answered: a crash right after must still know it.
    if (signedAt > now + AHEAD_GRACE_MS) return store.transact((tx) => tx.put(SIGNATURES, key, { key, expires_at: expiresAt })).then(() => 'new' as const);
    return 'new';
  };
  const readTerminal = (serial: string) => store.getLinked<TerminalRecord, Account>('terminals', serial, 'account_id', 'accounts');
  const present = ([terminal, account]: [TerminalRecord | undefined, Account | undefined]) => ({ ...(terminal ? { terminal } : {}), ...(account ? { account } : {}) });

  return {
    async claimAndRead(claim) {
      return { verdict: await verdict(claim), ...present(await readTerminal(claim.serial)) };
    },
    async claimAndWrite(claim, basis, write: ClaimedWrite): Promise<ClaimedWriteResult> {
      const said = await verdict(claim);
      const [terminal, account] = await readTerminal(claim.serial);
      if (!basisHolds({ record: terminal, linked: account }, decidedOn(basis))) return { verdict: said, written: false, changed: present([terminal, account]) };
      if (said !== 'new') return { verdict: said, written: false };
      if (write.kind === 'replace') return { verdict: said, written: await store.replaceIf(write.collection, write.id, write.expected, write.value) };
      const existing = await store.insertIfAbsent(write.collection, write.id, write.value);
      return existing ? { verdict: said, written: false, existing } : { verdict: said, written: true };
    },
    async save(now) {
      await ready;
      const entries = cache.live(now);
      if (entries.length > 0) await store.transact((tx) => tx.put(...SAVED, { entries, saved_at: now }));
    },
  };
}
