import t, { type Test } from 'tap';
import { EmbeddedStore } from '../store/embedded/embedded-store.js';
import { StoreDecorator } from '../testing/store-decorator.js';
import type { Store } from '../store/store.js';
import { signatureIndexes, SIGNATURES, type SignatureClaim } from './signature-ledger.js';
import { storeSignatureLedger } from './store-signature-ledger.js';

// The ledger of accepted signatures on a real store (the embedded one makes
// the same claim steps PostgreSQL makes in one statement; the store
// contract holds both to the same answers): every claim is a record, and
// expired ones are swept every few seconds.

const WINDOW = 300_000;
const START = 1_800_000_000_000;

async function openStore(t: Test): Promise<Store> {
  const store = await EmbeddedStore.open({ dir: t.testdir() });
  store.declareIndexes({ [SIGNATURES]: signatureIndexes });
  t.teardown(() => store.close());
  await store.transact((tx) => {
    tx.put('terminals', 'SN1', { serialNumber: 'SN1', account_id: 'acc_1', secret: 's' });
    tx.put('accounts', 'acc_1', { account_id: 'acc_1', clock_offset_ms: 0 });
  });
  return store;
}

const claim = (key: string, now: number): SignatureClaim => ({
  key,
  serial: 'SN1',
  signedAt: START,
  expiresAt: START + WINDOW,
  now,
});

/** Lets a background sweep finish: it is one store write, no timer. */
async function settled(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

t.test(
  'a claim is new once, then a replay on any instance of the store; it reads the terminal and its account with it',
  async (t) => {
    const store = await openStore(t);
    const one = storeSignatureLedger(store);
    const other = storeSignatureLedger(store);
    t.same(await one.claimAndRead(claim('SN1:a', START)), {
      verdict: 'new',
      terminal: { serialNumber: 'SN1', account_id: 'acc_1', secret: 's' },
      account: { account_id: 'acc_1', clock_offset_ms: 0 },
    });
    t.equal((await other.claimAndRead(claim('SN1:a', START + 1))).verdict, 'replayed', 'the other instance refuses it');
    t.same(await store.get(SIGNATURES, 'SN1:a'), { expires_at: START + WINDOW }, 'the claim carries its expiry');
    t.equal(
      (await one.claimAndRead(claim('SN1:a', START + WINDOW))).verdict,
      'new',
      'once expired, the record is taken over',
    );
  },
);

t.test('a claim with a write: written once, on the terminal and account it was decided on', async (t) => {
  const store = await openStore(t);
  const ledger = storeSignatureLedger(store);
  const { terminal, account } = await ledger.claimAndRead(claim('SN1:read', START));
  const basis = { terminal: terminal!, account: account! };
  const insert = { kind: 'insert' as const, collection: 'settlements', id: 'SN1/B1', value: { batch: 'B1' } };
  t.same(await ledger.claimAndWrite(claim('SN1:a', START), basis, insert), { verdict: 'new', written: true });
  t.same(await ledger.claimAndWrite(claim('SN1:b', START), basis, insert), {
    verdict: 'new',
    written: false,
    existing: { batch: 'B1' },
  });
  t.same(await ledger.claimAndWrite(claim('SN1:b', START), basis, { ...insert, id: 'SN1/B2' }), {
    verdict: 'replayed',
    written: false,
  });
  await store.transact((tx) => tx.put('terminals', 'SN1', { ...terminal, secret: 'rotated' }));
  t.same(
    await ledger.claimAndWrite(claim('SN1:c', START), basis, { ...insert, id: 'SN1/B3' }),
    { verdict: 'new', written: false, changed: { terminal: { ...terminal, secret: 'rotated' }, account } },
    'the terminal changed since: claimed, nothing written, both as they are now',
  );
  t.equal(await store.get('settlements', 'SN1/B3'), undefined);
});

t.test('expired claims are swept at most every five seconds, the live ones kept', async (t) => {
  const store = await openStore(t);
  const ledger = storeSignatureLedger(store);
  await store.transact((tx) => tx.put(SIGNATURES, 'SN1:old', { key: 'SN1:old', expires_at: START - 1 }));
  await ledger.claimAndRead(claim('SN1:a', START));
  await settled();
  t.same(await store.list(SIGNATURES), [{ expires_at: START + WINDOW }], 'the first claim sweeps');
  await store.transact((tx) => tx.put(SIGNATURES, 'SN1:old', { key: 'SN1:old', expires_at: START }));
  await ledger.claimAndRead(claim('SN1:b', START + 5_000));
  await settled();
  t.equal(await store.count(SIGNATURES), 3, 'not again within five seconds');
  await ledger.claimAndWrite(
    claim('SN1:c', START + 5_001),
    { terminal: (await store.get('terminals', 'SN1'))!, account: (await store.get('accounts', 'acc_1'))! } as never,
    {
      kind: 'insert',
      collection: 'settlements',
      id: 'SN1/B1',
      value: {},
    },
  );
  await settled();
  t.equal(await store.get(SIGNATURES, 'SN1:old'), undefined, 'a claim with a write sweeps by the same rule');
  t.equal(await store.count(SIGNATURES), 2, 'the two live markers; the written claim is kept with its row');
});

t.test('a sweep that fails is left for the next; the claim still answers', async (t) => {
  const store = await openStore(t);
  class NoSweeps extends StoreDecorator {
    override deleteUpTo(): Promise<void> {
      return Promise.reject(new Error('database away'));
    }
  }
  const ledger = storeSignatureLedger(new NoSweeps(store));
  t.equal((await ledger.claimAndRead(claim('SN1:a', START))).verdict, 'new');
  await settled();
});

t.test('accepted signatures are indexed by expiry, for the sweep', async (t) => {
  t.same(signatureIndexes, [{ equals: [], order: { field: 'expires_at', type: 'number' } }]);
});
