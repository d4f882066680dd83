import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { listJournalFiles } from './journal-files.js';
import { EmbeddedStore } from './embedded-store.js';
import { storeContract } from '../testing/store-contract.js';

t.test('the embedded store keeps the store contract', async (t) => {
  storeContract(t, async (t) => {
    const dir = t.testdir();
    return { open: () => EmbeddedStore.open({ dir }) };
  });
});

t.test('a snapshot compacts the journal and the state survives reopening', async (t) => {
  const dir = t.testdir();
  const store = await EmbeddedStore.open({ dir });
  for (let i = 0; i < 20; i += 1) await store.transact((tx) => tx.put('items', `i${i}`, { i }));
  await store.snapshot();
  await store.transact((tx) => tx.put('items', 'after', { i: 'after' }));
  await store.close();

  const files = await listJournalFiles(dir);
  t.equal(files.length, 1, 'only the journal written after the snapshot remains');
  t.equal(files[0]!.firstSeq, 21);

  const reopened = await EmbeddedStore.open({ dir });
  t.teardown(() => reopened.close());
  t.equal(reopened.openStats.snapshotSeq, 20);
  t.equal(reopened.openStats.replayedEntries, 1);
  t.equal(await reopened.count('items'), 21);
});

t.test('writes that race a snapshot land in the next journal, not in the snapshot', async (t) => {
  const dir = t.testdir();
  const store = await EmbeddedStore.open({ dir });
  await store.transact((tx) => {
    for (let i = 0; i < 5000; i += 1) tx.put('items', `i${i}`, { v: 0 });
  });
  const snapshot = store.snapshot();
  // Change, delete, delete-and-recreate and add while the snapshot streams out.
  await Promise.all([
    store.transact((tx) => tx.put('items', 'i1', { v: 1 })),
    store.transact((tx) => tx.delete('items', 'i2')),
    store.transact((tx) => {
      tx.delete('items', 'i4999');
      tx.put('items', 'i4999', { v: 'again' });
    }),
    store.transact((tx) => tx.put('items', 'new', { v: 'new' })),
    snapshot,
  ]);
  await store.close();
  const reopened = await EmbeddedStore.open({ dir });
  t.teardown(() => reopened.close());
  t.same(await reopened.get('items', 'i1'), { v: 1 });
  t.equal(await reopened.get('items', 'i2'), undefined);
  t.same(await reopened.get('items', 'i4999'), { v: 'again' });
  t.same(await reopened.get('items', 'new'), { v: 'new' });
  t.equal(await reopened.count('items'), 5000);

  const snapshotLines = (await readFile(join(dir, 'snapshot.jsonl'), 'utf8')).trim().split('\n');
  t.equal(snapshotLines.length, 5002, 'header, the 5000 records as captured, footer');
});

t.test('a snapshot starts by itself once the journal outgrows the threshold', async (t) => {
  const dir = t.testdir();
  const store = await EmbeddedStore.open({ dir, snapshotMinJournalBytes: 4096 });
  for (let i = 0; i < 200; i += 1) await store.transact((tx) => tx.put('items', `i${i}`, { pad: 'x'.repeat(50) }));
  await store.close();
  const names = await readdir(dir);
  t.ok(names.includes('snapshot.jsonl'));
  const reopened = await EmbeddedStore.open({ dir });
  t.teardown(() => reopened.close());
  t.ok(reopened.openStats.snapshotSeq > 0);
  t.equal(await reopened.count('items'), 200);
});

t.test('a torn last journal line is dropped and the rest loads', async (t) => {
  const dir = t.testdir();
  const store = await EmbeddedStore.open({ dir });
  await store.transact((tx) => tx.put('items', 'kept', { ok: true }));
  await store.close();
  const [file] = await listJournalFiles(dir);
  await appendFile(file!.path, '{"seq":2,"crc":"0000');
  const reopened = await EmbeddedStore.open({ dir });
  t.same(await reopened.get('items', 'kept'), { ok: true });
  await reopened.transact((tx) => tx.put('items', 'next', { ok: true }));
  await reopened.close();
  const again = await EmbeddedStore.open({ dir });
  t.teardown(() => again.close());
  t.equal(await again.count('items'), 2, 'the journal is usable after the cut');
});

t.test('a damaged line in the middle of the journal stops start-up naming the file and line', async (t) => {
  const dir = t.testdir();
  const store = await EmbeddedStore.open({ dir });
  for (let i = 0; i < 3; i += 1) await store.transact((tx) => tx.put('items', `i${i}`, { i }));
  await store.close();
  const [file] = await listJournalFiles(dir);
  const lines = (await readFile(file!.path, 'utf8')).split('\n');
  lines[1] = lines[1]!.replace('"i":1', '"i":7');
  await writeFile(file!.path, lines.join('\n'));
  const error = await EmbeddedStore.open({ dir }).then(
    () => null,
    (e: unknown) => e,
  );
  t.match(error, { code: 'STORE_CORRUPT' });
  t.match((error as Error).message, new RegExp(`${file!.name} line 2: checksum mismatch`));
});

t.test('a second store on the same directory is refused until the first closes', async (t) => {
  const dir = t.testdir();
  const first = await EmbeddedStore.open({ dir });
  await t.rejects(EmbeddedStore.open({ dir }), { code: 'STORE_LOCKED' });
  await first.close();
  const second = await EmbeddedStore.open({ dir });
  await second.close();
});

t.test('stale snapshot temp files are removed at start-up', async (t) => {
  const dir = t.testdir({ 'snapshot.jsonl.tmp-12345': 'half a snapshot' });
  const store = await EmbeddedStore.open({ dir });
  await store.close();
  t.notOk((await readdir(dir)).some((name) => name.includes('.tmp-')));
});

t.test('a value that cannot be stored as JSON is refused before anything changes', async (t) => {
  const dir = t.testdir();
  const store = await EmbeddedStore.open({ dir });
  t.teardown(() => store.close());
  await t.rejects(store.transact((tx) => tx.put('c', '1', { big: 1n } as never)));
  t.equal(await store.get('c', '1'), undefined);
});
