import t, { type Test } from 'tap';
import { LowdbStore } from '../store/lowdb-store.js';
import type { Store } from '../store/store.js';
import type { TerminalRecord } from './terminal.js';
import { AHEAD_GRACE_MS, restartSafeReplayGuard, signatureIndexes, storeReplayGuard, type ReplayVerdict, type SignatureClaims } from './replay-guard.js';

// The replay decision on its own, on the embedded store in a temp dir: a
// signature accepted once is refused after, across a clean stop and across
// a crash (a guard opened on the store as the crashed process left it),
// wherever its timestamp lies in the 300 s window.

const WINDOW = 300_000;
const START = 1_800_000_000_000;

async function openStore(t: Test, dir: string): Promise<Store> {
  const store = await LowdbStore.open({ dir });
  t.teardown(() => store.close());
  return store;
}

async function withTerminal(store: Store): Promise<void> {
  await store.transact((tx) => tx.put('terminals', 'SN1', { serialNumber: 'SN1', account_id: 'acc_1' }));
}

/** A check as the guard middleware makes it: expiring a window after the signature's time. */
const check = (guard: ReturnType<typeof restartSafeReplayGuard>, key: string, signedAt: number, now: number): Promise<ReplayVerdict> => guard.check(key, signedAt, signedAt + WINDOW, now);

/** Lets a background sweep finish: it is a store read and a write, no timer. */
async function settled(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

t.test('a store that never had a terminal refuses nothing at start; a signature is new once, then replayed', async (t) => {
  const store = await openStore(t, t.testdir());
  const guard = restartSafeReplayGuard(store, WINDOW, START);
  t.equal(await check(guard, 'SN1:a', START - 1000, START), 'new');
  t.equal(await check(guard, 'SN1:a', START - 1000, START + 1), 'replayed');
  t.equal(await check(guard, 'SN1:b', START - 1000, START + 2), 'new', 'another signature is another request');
});

t.test('after a crash, what is dated before the start plus the grace is refused as possibly accepted; from there on, new', async (t) => {
  const store = await openStore(t, t.testdir());
  await withTerminal(store);
  const guard = restartSafeReplayGuard(store, WINDOW, START);
  t.equal(await check(guard, 'SN1:a', START - 200_000, START), 'before-restart');
  t.equal(await check(guard, 'SN1:b', START + AHEAD_GRACE_MS - 1, START), 'before-restart');
  t.equal(await check(guard, 'SN1:c', START + AHEAD_GRACE_MS, START), 'new', 'signed at the start plus a second');
  t.equal(AHEAD_GRACE_MS, 1000);
});

t.test('a clean stop saves what is still fresh; the next start refuses exactly that, once loaded, and forgets the saved record', async (t) => {
  const dir = t.testdir();
  const first = await openStore(t, dir);
  await withTerminal(first);
  const before = restartSafeReplayGuard(first, WINDOW, START - 10_000);
  t.equal(await check(before, 'SN1:a', START - 5000, START - 5000), 'new');
  await before.save!(START);
  t.ok(await first.get('replay_window', 'saved'), 'saved as one record');

  const after = restartSafeReplayGuard(first, WINDOW, START);
  t.equal(await check(after, 'SN1:a', START - 5000, START + 1), 'replayed', 'the saved signature is still refused');
  t.equal(await check(after, 'SN1:other', START - 5000, START + 1), 'new', 'a clean stop leaves nothing else refused');
  t.equal(await first.get('replay_window', 'saved'), undefined, 'deleted once loaded: a later crash does not trust it');
});

t.test('a clean stop with nothing fresh writes nothing', async (t) => {
  const store = await openStore(t, t.testdir());
  const guard = restartSafeReplayGuard(store, WINDOW, START);
  t.equal(await check(guard, 'SN1:a', START - WINDOW, START), 'new');
  await guard.save!(START + 1);
  t.equal(await store.get('replay_window', 'saved'), undefined);
});

t.test('a signature dated more than the grace ahead is written before it is accepted, and refused after a crash', async (t) => {
  const dir = t.testdir();
  const store = await openStore(t, dir);
  await withTerminal(store);
  const guard = restartSafeReplayGuard(store, WINDOW, START - 60_000);
  t.equal(await check(guard, 'SN1:edge', START + AHEAD_GRACE_MS, START), 'new');
  t.equal(await store.count('pos_signatures'), 0, 'dated the grace ahead: no write');
  t.equal(await check(guard, 'SN1:ahead', START + AHEAD_GRACE_MS + 1, START), 'new');
  t.same(await store.list('pos_signatures'), [{ key: 'SN1:ahead', expires_at: START + AHEAD_GRACE_MS + 1 + WINDOW }]);

  t.equal(await check(guard, 'SN1:far', START + 200_000, START), 'new', 'dated 200 s ahead, as the tolerance allows');

  // The process dies here. The next start, still within the signatures' window:
  const restarted = restartSafeReplayGuard(store, WINDOW, START + 2000);
  t.equal(await check(restarted, 'SN1:ahead', START + AHEAD_GRACE_MS + 1, START + 3000), 'before-restart', 'dated before the new start plus the grace');
  t.equal(await check(restarted, 'SN1:far', START + 200_000, START + 3000), 'replayed', 'dated after it: refused because it was written');
  t.equal(await check(restarted, 'SN1:far-other', START + 200_000, START + 3000), 'new', 'another one dated as far is not');
});

t.test('a kept signature that has expired by the start is not loaded', async (t) => {
  const store = await openStore(t, t.testdir());
  await store.transact((tx) => tx.put('pos_signatures', 'SN1:old', { key: 'SN1:old', expires_at: START }));
  await store.transact((tx) => tx.put('pos_signatures', 'SN1:live', { key: 'SN1:live', expires_at: START + 1 }));
  const guard = restartSafeReplayGuard(store, WINDOW, START);
  t.equal(await guard.check('SN1:old', START - WINDOW, START + WINDOW, START), 'new', 'expired at the start: a fresh check');
  t.equal(await guard.check('SN1:live', START - WINDOW, START + 1, START), 'replayed', 'alive a millisecond past the start: refused');
});

t.test('kept signatures are swept once expired, no more than once a minute, and the live ones stay', async (t) => {
  const store = await openStore(t, t.testdir());
  const guard = restartSafeReplayGuard(store, WINDOW, START);
  // Dated ahead (so written), one expiring within the first minute, one long after.
  t.equal(await guard.check('SN1:soon', START + 1500, START + 2000, START), 'new');
  t.equal(await guard.check('SN1:late', START + 200_000, START + 500_000, START), 'new');
  t.equal(await store.count('pos_signatures'), 2);
  await guard.check('SN1:b', START + 30_000, START + 30_000 + WINDOW, START + 30_000);
  await settled();
  t.equal(await store.count('pos_signatures'), 2, 'expired, but within a minute of the start: not swept yet');
  await guard.check('SN1:c', START + 60_000, START + 60_000 + WINDOW, START + 60_000);
  await settled();
  t.equal(await store.count('pos_signatures'), 2, 'a minute exactly: not yet');
  await guard.check('SN1:d', START + 60_001, START + 60_001 + WINDOW, START + 60_001);
  await settled();
  t.same(await store.list('pos_signatures'), [{ key: 'SN1:late', expires_at: START + 500_000 }], 'the expired one swept, the live one kept');
  await guard.check('SN1:e', START + 100_000, START + 100_000 + WINDOW, START + 100_000);
  await settled();
  t.equal(await store.count('pos_signatures'), 1, 'the next sweep waits for the next minute');
});

t.test('a store that answers "no" at start fails the first check that needs it, not the process', async (t) => {
  const away = new Error('store away');
  const failing = { get: () => Promise.reject(away), list: () => Promise.reject(away), count: () => Promise.reject(away), transact: () => Promise.reject(away) } as unknown as Store;
  const guard = restartSafeReplayGuard(failing, WINDOW, START);
  await t.rejects(guard.check('SN1:a', START, START + WINDOW, START), away);
});

t.test('several instances: the verdict is the shared store\'s, and expired claims are swept at most once a minute', async (t) => {
  const claims: Array<[string, number, number]> = [];
  const sweeps: number[] = [];
  const seen = new Set<string>();
  const shared: SignatureClaims & { kind: string } = {
    kind: 'fake',
    async claimSignature(key, expiresAt, now) {
      claims.push([key, expiresAt, now]);
      if (seen.has(key)) return 'replayed';
      seen.add(key);
      return 'new';
    },
    async claimSignatureAndRead(key, expiresAt, now, serial) {
      const verdict = await this.claimSignature(key, expiresAt, now);
      return { verdict, terminal: { serialNumber: serial } as TerminalRecord };
    },
    async claimSignatureAndWrite(claim, _expected, write) {
      const verdict = await this.claimSignature(claim.key, claim.expiresAt, claim.now);
      return { verdict, written: false, existing: { id: write.id } };
    },
    async sweepSignatures(now) {
      sweeps.push(now);
    },
  };
  const guard = storeReplayGuard(shared as unknown as Store);
  t.equal(await guard.check('SN1:a', START, START + WINDOW, START), 'new');
  t.equal(await guard.check('SN1:a', START, START + WINDOW, START + 1), 'replayed');
  t.same(claims[0], ['SN1:a', START + WINDOW, START], 'the claim carries the expiry and the time');
  t.same(sweeps, [START], 'the first check sweeps');
  await guard.check('SN1:b', START, START + WINDOW, START + 60_000);
  t.same(sweeps, [START], 'not again within the minute');
  await guard.check('SN1:c', START, START + WINDOW, START + 60_001);
  t.same(sweeps, [START, START + 60_001]);
  const checked = await guard.checkAndRead!('SN1:d', START, START + WINDOW, START + 60_002, 'SN1');
  t.same(checked, { verdict: 'new', terminal: { serialNumber: 'SN1' } }, 'a check can read the terminal in the same step');
  t.same(claims.at(-1), ['SN1:d', START + WINDOW, START + 60_002]);
  t.same(sweeps, [START, START + 60_001], 'and sweeps by the same rule');
  const written = await guard.checkAndWrite!({
    claim: { key: 'SN1:e', expiresAt: START + WINDOW, now: START + 120_003, serial: 'SN1' },
    expected: { terminal: { serialNumber: 'SN1' } as TerminalRecord, clockOffsetMs: 0 },
    write: { kind: 'insert', collection: 'settlements', id: 'SN1:7', value: {} },
  });
  t.same(written, { verdict: 'new', written: false, existing: { id: 'SN1:7' } }, 'a check can be made with the request\'s write, the store\'s answer as it is');
  t.same(claims.at(-1), ['SN1:e', START + WINDOW, START + 120_003]);
  t.same(sweeps, [START, START + 60_001, START + 120_003], 'and sweeps by the same rule');
  t.equal(guard.save, undefined, 'nothing to save: every claim is already in the shared store');
});

t.test('a sweep that fails is left for the next; the claim still answers', async (t) => {
  const shared = {
    kind: 'fake',
    claimSignature: async () => 'new' as const,
    sweepSignatures: () => Promise.reject(new Error('database away')),
  };
  const guard = storeReplayGuard(shared as unknown as Store);
  t.equal(await guard.check('SN1:a', START, START + WINDOW, START), 'new');
  await settled();
});

t.test('a store that does not share claims cannot guard several instances, and says so', async (t) => {
  const store = await openStore(t, t.testdir());
  t.throws(() => storeReplayGuard(store), { message: 'the lowdb store does not share accepted signatures between instances' });
});

t.test('accepted signatures are indexed by expiry, for the sweep', async (t) => {
  t.same(signatureIndexes, [{ equals: [], order: { field: 'expires_at', type: 'number' } }]);
});
