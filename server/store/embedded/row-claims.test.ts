import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { EmbeddedStore } from './embedded-store.js';
import { RowClaims, rowClaimHolds } from './row-claims.js';
import { isStoredRowClaim } from './stored-spelling.js';
import { checkStore } from './store-check.js';
import { claimedInserts } from '../testing/store-contract-claims.js';

// A claim made with an insert that is written, kept with the row on the
// embedded store: no marker record, in the insert's journal operation and
// in the snapshot's line of the row, forgotten once past its time.

const { claim, read, basis, insert } = claimedInserts;

async function world(dir: string): Promise<EmbeddedStore> {
  const store = await EmbeddedStore.open({ dir });
  await store.transact((tx) => {
    tx.put('things', 'T1', { owner: 'o1', v: 1 });
    tx.put('owners', 'o1', { clock: 5 });
  });
  return store;
}

t.test('kept with the row, journaled with its insert, and no marker written', async (t) => {
  const dir = t.testdir();
  const store = await world(dir);
  t.same(await store.claimAndWrite(claim('k1', 1000), read, basis, insert('b1')), { claimed: true, written: true });
  t.equal(await store.count('claims'), 0, 'no marker record');
  await store.close();
  const [journal] = (await readdir(dir)).filter((name) => name.startsWith('journal-'));
  const lines = (await readFile(join(dir, journal!), 'utf8')).trim().split('\n');
  t.match(
    lines.at(-1),
    /"ops":\[\{"op":"put","c":"boxes","id":"b1","v":\{"id":"b1"\},"k":\{"c":"claims","id":"k1","u":2000\}\}\]/,
  );

  const reopened = await EmbeddedStore.open({ dir });
  t.teardown(() => reopened.close());
  t.same(
    await reopened.claimAndWrite(claim('k1', 1500), read, basis, insert('b1')),
    { claimed: false, written: false },
    'replayed from the journal: the same claim and insert are held',
  );
  t.same(
    await reopened.claimAndWrite(claim('k9', 1500), read, basis, insert('b1')),
    { claimed: true, written: false, existing: { id: 'b1' } },
    'another claim for the same row: claimed (a marker), and given the record there',
  );
  t.same(await reopened.get('claims', 'k9'), { until: 2000 });
});

t.test('a snapshot keeps the claim on the row line; past its time it is forgotten', async (t) => {
  const dir = t.testdir();
  const store = await world(dir);
  await store.claimAndWrite(claim('k1', 1000), read, basis, insert('b1'));
  await store.snapshot();
  await store.close();
  const snapshot = await readFile(join(dir, 'snapshot.jsonl'), 'utf8');
  t.match(snapshot, /\["boxes","b1",\{"id":"b1"\},\{"c":"claims","id":"k1","u":2000\}\]/, 'the row with its claim');
  t.notOk((await checkStore(dir)).damaged, 'store:check reads it whole');

  const reopened = await EmbeddedStore.open({ dir });
  t.teardown(() => reopened.close());
  t.equal(reopened.openStats.replayedEntries, 0, 'from the snapshot alone');
  t.same(await reopened.claimAndWrite(claim('k1', 1999), read, basis, insert('b1')), {
    claimed: false,
    written: false,
  });
  await reopened.deleteUpTo('claims', 'until', 1999);
  t.same(
    await reopened.claimAndWrite(claim('k1', 1999), read, basis, insert('b1')),
    { claimed: false, written: false },
    'a sweep before its time keeps it',
  );
  await reopened.deleteUpTo('claims', 'until', 2000);
  t.same(
    await reopened.claimAndWrite(claim('k1', 1999), read, basis, insert('b1')),
    { claimed: true, written: false, existing: { id: 'b1' } },
    'swept past its time: forgotten (it would hold nothing at its time anyway)',
  );
  await reopened.transact((tx) => tx.delete('boxes', 'b1'));
  t.same(
    await reopened.claimAndWrite(claim('k2', 1000), read, basis, insert('b1')),
    { claimed: true, written: true },
    'a row deleted and written again with another claim',
  );
});

t.test('the prune walks each claim collection in order, and keeps what holds or has no time', async (t) => {
  const claims = new RowClaims();
  for (let n = 0; n < 3000; n += 1) claims.set('rows', `r${n}`, { collection: 'claims', id: `k${n}`, until: n });
  claims.set('rows', 'late', { collection: 'claims', id: 'late', until: 10 }); // kept out of order: after r2999
  claims.set('rows', 'forever', { collection: 'claims', id: 'forever', until: null });
  claims.set('rows', 'other', { collection: 'others', id: 'o', until: 0 });
  claims.prune('claims', 1999);
  t.equal(claims.get('rows', 'r1999'), undefined);
  t.same(claims.get('rows', 'r2000'), { collection: 'claims', id: 'k2000', until: 2000 });
  t.ok(claims.get('rows', 'late'), 'one kept out of order waits for those before it');
  t.notOk(rowClaimHolds(claims.get('rows', 'late'), 'claims', 'late', 1999), 'and holds nothing meanwhile');
  t.ok(claims.get('rows', 'other'), 'another claim collection is not pruned with this one');
  claims.prune('claims', 5000);
  t.equal(claims.get('rows', 'late'), undefined);
  t.ok(claims.get('rows', 'forever'), 'a claim without a time stays with its row');
  t.ok(rowClaimHolds(claims.get('rows', 'forever'), 'claims', 'forever', 1e15));
  claims.delete('rows', 'forever');
  t.equal(claims.get('rows', 'forever'), undefined, 'gone with its row');
  // A claim replaced by another for the same row is not pruned with the old one's time.
  claims.set('rows', 'again', { collection: 'claims', id: 'a1', until: 6000 });
  claims.set('rows', 'again', { collection: 'claims', id: 'a2', until: 9000 });
  claims.prune('claims', 7000);
  t.same(claims.get('rows', 'again'), { collection: 'claims', id: 'a2', until: 9000 });
  t.notOk(rowClaimHolds(claims.get('rows', 'again'), 'claims', 'a1', 0), 'another claim id does not hold');
  t.notOk(rowClaimHolds(claims.get('rows', 'again'), 'others', 'a2', 0), 'nor the same id of another collection');
});

t.test('a row claim read back from a line (its stored spelling) is one only in its exact shape', async (t) => {
  t.ok(isStoredRowClaim({ c: 'claims', id: 'k', u: 5 }));
  t.ok(isStoredRowClaim({ c: 'claims', id: 'k', u: null }), 'a time that was unreadable');
  for (const [value, why] of [
    [null, 'null'],
    ['claims', 'a string'],
    [{ id: 'k', u: 5 }, 'no collection'],
    [{ c: 1, id: 'k', u: 5 }, 'a collection not text'],
    [{ c: 'claims', u: 5 }, 'no id'],
    [{ c: 'claims', id: 7, u: 5 }, 'an id not text'],
    [{ c: 'claims', id: 'k' }, 'no time'],
    [{ c: 'claims', id: 'k', u: '5' }, 'a time not a number'],
  ] as const)
    t.notOk(isStoredRowClaim(value), why);
});

t.test('a row claim holds until its time, that claim only', async (t) => {
  const kept = { collection: 'claims', id: 'k', until: 100 };
  t.ok(rowClaimHolds(kept, 'claims', 'k', 99));
  t.notOk(rowClaimHolds(kept, 'claims', 'k', 100), 'at its time it no longer holds, as a marker');
  t.notOk(rowClaimHolds(undefined, 'claims', 'k', 0), 'no claim kept');
  const claims = new RowClaims();
  claims.delete('nowhere', 'x');
  claims.prune('nothing kept', 1e15);
  t.equal(claims.get('nowhere', 'x'), undefined, 'deleting or pruning what is not there changes nothing');
  claims.set('rows', 'r', kept);
  claims.prune('claims', 99);
  t.same(claims.get('rows', 'r'), kept, 'a prune before its time keeps it');
  claims.prune('claims', 100);
  t.equal(claims.get('rows', 'r'), undefined, 'and at its time forgets it');
  claims.set('rows', 'n', { collection: 'timeless', id: 'k0', until: null });
  claims.set('rows', 'n', { collection: 'timeless', id: 'k1', until: 5 });
  t.same(
    claims.get('rows', 'n'),
    { collection: 'timeless', id: 'k1', until: 5 },
    'a claim without a time replaced by one with',
  );
});
