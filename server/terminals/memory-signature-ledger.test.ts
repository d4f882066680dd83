import t, { type Test } from 'tap';
import { EmbeddedStore } from '../store/embedded-store.js';
import type { Store } from '../store/store.js';
import { AHEAD_GRACE_MS, memorySignatureLedger } from './memory-signature-ledger.js';
import { signatureIndexes, type ReplayVerdict, type SignatureLedger } from './signature-ledger.js';

// The replay decision on its own, on the embedded store in a temp dir: a
// signature accepted once is refused after, across a clean stop and across
// a crash (a guard opened on the store as the crashed process left it),
// wherever its timestamp lies in the 300 s window.

const WINDOW = 300_000;
const START = 1_800_000_000_000;

async function openStore(t: Test, dir: string): Promise<Store> {
  const store = await EmbeddedStore.open({ dir });
  t.teardown(() => store.close());
  return store;
}

async function withTerminal(store: Store): Promise<void> {
  await store.transact((tx) => tx.put('terminals', 'SN1', { serialNumber: 'SN1', account_id: 'acc_1' }));
}

/** A claim's verdict, the claim expiring at `expiresAt`. */
const verdictOf = async (ledger: SignatureLedger, key: string, signedAt: number, expiresAt: number, now: number): Promise<ReplayVerdict> =>
  (await ledger.claimAndRead({ key, serial: key.split(':')[0]!, signedAt, expiresAt, now })).verdict;

/** A claim as the guard middleware makes it: expiring a window after the signature's time. */
const check = (ledger: SignatureLedger, key: string, signedAt: number, now: number): Promise<ReplayVerdict> => verdictOf(ledger, key, signedAt, signedAt + WINDOW, now);

/** Lets a background sweep finish: it is a store read and a write, no timer. */
async function settled(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

t.test('a store that never had a terminal refuses nothing at start; a signature is new once, then replayed', async (t) => {
  const store = await openStore(t, t.testdir());
  const guard = memorySignatureLedger(store, WINDOW, START);
  t.equal(await check(guard, 'SN1:a', START - 1000, START), 'new');
  t.equal(await check(guard, 'SN1:a', START - 1000, START + 1), 'replayed');
  t.equal(await check(guard, 'SN1:b', START - 1000, START + 2), 'new', 'another signature is another request');
});

t.test('after a crash, what is dated before the start plus the grace is refused as possibly accepted; from there on, new', async (t) => {
  const store = await openStore(t, t.testdir());
  await withTerminal(store);
  const guard = memorySignatureLedger(store, WINDOW, START);
  t.equal(await check(guard, 'SN1:a', START - 200_000, START), 'before-restart');
  t.equal(await check(guard, 'SN1:b', START + AHEAD_GRACE_MS - 1, START), 'before-restart');
  t.equal(await check(guard, 'SN1:c', START + AHEAD_GRACE_MS, START), 'new', 'signed at the start plus a second');
  t.equal(AHEAD_GRACE_MS, 1000);
});

t.test('a clean stop saves what is still fresh; the next start refuses exactly that, once loaded, and forgets the saved record', async (t) => {
  const dir = t.testdir();
  const first = await openStore(t, dir);
  await withTerminal(first);
  const before = memorySignatureLedger(first, WINDOW, START - 10_000);
  t.equal(await check(before, 'SN1:a', START - 5000, START - 5000), 'new');
  await before.save(START);
  t.ok(await first.get('replay_window', 'saved'), 'saved as one record');

  const after = memorySignatureLedger(first, WINDOW, START);
  t.equal(await check(after, 'SN1:a', START - 5000, START + 1), 'replayed', 'the saved signature is still refused');
  t.equal(await check(after, 'SN1:other', START - 5000, START + 1), 'new', 'a clean stop leaves nothing else refused');
  t.equal(await first.get('replay_window', 'saved'), undefined, 'deleted once loaded: a later crash does not trust it');
});

t.test('a clean stop with nothing fresh writes nothing', async (t) => {
  const store = await openStore(t, t.testdir());
  const guard = memorySignatureLedger(store, WINDOW, START);
  t.equal(await check(guard, 'SN1:a', START - WINDOW, START), 'new');
  await guard.save(START + 1);
  t.equal(await store.get('replay_window', 'saved'), undefined);
});

t.test('a signature dated more than the grace ahead is written before it is accepted, and refused after a crash', async (t) => {
  const dir = t.testdir();
  const store = await openStore(t, dir);
  await withTerminal(store);
  const guard = memorySignatureLedger(store, WINDOW, START - 60_000);
  t.equal(await check(guard, 'SN1:edge', START + AHEAD_GRACE_MS, START), 'new');
  t.equal(await store.count('pos_signatures'), 0, 'dated the grace ahead: no write');
  t.equal(await check(guard, 'SN1:ahead', START + AHEAD_GRACE_MS + 1, START), 'new');
  t.same(await store.list('pos_signatures'), [{ key: 'SN1:ahead', expires_at: START + AHEAD_GRACE_MS + 1 + WINDOW }]);

  t.equal(await check(guard, 'SN1:far', START + 200_000, START), 'new', 'dated 200 s ahead, as the tolerance allows');

  // The process dies here. The next start, still within the signatures' window:
  const restarted = memorySignatureLedger(store, WINDOW, START + 2000);
  t.equal(await check(restarted, 'SN1:ahead', START + AHEAD_GRACE_MS + 1, START + 3000), 'before-restart', 'dated before the new start plus the grace');
  t.equal(await check(restarted, 'SN1:far', START + 200_000, START + 3000), 'replayed', 'dated after it: refused because it was written');
  t.equal(await check(restarted, 'SN1:far-other', START + 200_000, START + 3000), 'new', 'another one dated as far is not');
});

t.test('a kept signature that has expired by the start is not loaded', async (t) => {
  const store = await openStore(t, t.testdir());
  await store.transact((tx) => tx.put('pos_signatures', 'SN1:old', { key: 'SN1:old', expires_at: START }));
  await store.transact((tx) => tx.put('pos_signatures', 'SN1:live', { key: 'SN1:live', expires_at: START + 1 }));
  const guard = memorySignatureLedger(store, WINDOW, START);
  t.equal(await verdictOf(guard, 'SN1:old', START - WINDOW, START + WINDOW, START), 'new', 'expired at the start: a fresh check');
  t.equal(await verdictOf(guard, 'SN1:live', START - WINDOW, START + 1, START), 'replayed', 'alive a millisecond past the start: refused');
});

t.test('kept signatures are swept once expired, no more than once a minute, and the live ones stay', async (t) => {
  const store = await openStore(t, t.testdir());
  const guard = memorySignatureLedger(store, WINDOW, START);
  // Dated ahead (so written), one expiring within the first minute, one long after.
  t.equal(await verdictOf(guard, 'SN1:soon', START + 1500, START + 2000, START), 'new');
  t.equal(await verdictOf(guard, 'SN1:late', START + 200_000, START + 500_000, START), 'new');
  t.equal(await store.count('pos_signatures'), 2);
  await verdictOf(guard, 'SN1:b', START + 30_000, START + 30_000 + WINDOW, START + 30_000);
  await settled();
  t.equal(await store.count('pos_signatures'), 2, 'expired, but within a minute of the start: not swept yet');
  await verdictOf(guard, 'SN1:c', START + 60_000, START + 60_000 + WINDOW, START + 60_000);
  await settled();
  t.equal(await store.count('pos_signatures'), 2, 'a minute exactly: not yet');
  await verdictOf(guard, 'SN1:d', START + 60_001, START + 60_001 + WINDOW, START + 60_001);
  await settled();
  t.same(await store.list('pos_signatures'), [{ key: 'SN1:late', expires_at: START + 500_000 }], 'the expired one swept, the live one kept');
  await verdictOf(guard, 'SN1:e', START + 100_000, START + 100_000 + WINDOW, START + 100_000);
  await settled();
  t.equal(await store.count('pos_signatures'), 1, 'the next sweep waits for the next minute');
});

t.test('a store that answers "no" at start fails the first check that needs it, not the process', async (t) => {
  const away = new Error('store away');
  const failing = { get: () => Promise.reject(away), list: () => Promise.reject(away), count: () => Promise.reject(away), transact: () => Promise.reject(away) } as unknown as Store;
  const guard = memorySignatureLedger(failing, WINDOW, START);
  await t.rejects(verdictOf(guard, 'SN1:a', START, START + WINDOW, START), away);
});

t.test('a claim reads the terminal and its account as they are now; a write is made only on them and only once', async (t) => {
  const store = await openStore(t, t.testdir());
  await store.transact((tx) => {
    tx.put('terminals', 'SN1', { serialNumber: 'SN1', account_id: 'acc_1', secret: 's' });
    tx.put('accounts', 'acc_1', { account_id: 'acc_1', clock_offset_ms: 0 });
  });
  const ledger = memorySignatureLedger(store, WINDOW, START);
  const claim = (key: string) => ({ key, serial: 'SN1', signedAt: START + 5000, expiresAt: START + 5000 + WINDOW, now: START + 5000 });
  const read = await ledger.claimAndRead(claim('SN1:a'));
  t.same(read, { verdict: 'new', terminal: { serialNumber: 'SN1', account_id: 'acc_1', secret: 's' }, account: { account_id: 'acc_1', clock_offset_ms: 0 } });
  const basis = { terminal: read.terminal!, account: read.account! };
  const insert = { kind: 'insert' as const, collection: 'settlements', id: 'SN1/B1', value: { batch: 'B1' } };
  t.same(await ledger.claimAndWrite(claim('SN1:b'), basis, insert), { verdict: 'new', written: true });
  t.same(await ledger.claimAndWrite(claim('SN1:c'), basis, insert), { verdict: 'new', written: false, existing: { batch: 'B1' } }, 'an insert of a taken id answers the record there');
  t.same(await ledger.claimAndWrite(claim('SN1:c'), basis, { ...insert, id: 'SN1/B2' }), { verdict: 'replayed', written: false }, 'a replay writes nothing');
  t.equal(await store.get('settlements', 'SN1/B2'), undefined);
  await store.transact((tx) => tx.put('accounts', 'acc_1', { account_id: 'acc_1', clock_offset_ms: 60_000 }));
  t.same(
    await ledger.claimAndWrite(claim('SN1:d'), basis, { kind: 'replace', collection: 'settlements', id: 'SN1/B1', expected: { batch: 'B1' }, value: { batch: 'B1', late: true } }),
    { verdict: 'new', written: false, changed: { terminal: basis.terminal, account: { account_id: 'acc_1', clock_offset_ms: 60_000 } } },
    'the account\'s clock moved since: claimed, nothing written, the account as it is now',
  );
  t.same(await store.get('settlements', 'SN1/B1'), { batch: 'B1' });
});
