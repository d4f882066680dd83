import { appendFile, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { listJournalFiles } from './journal-files.js';
import { EmbeddedStore } from './embedded-store.js';

// Damage on disk is refused at start-up, naming the file and line; only a
// write cut short (a line without its newline) is dropped.

const openError = (dir: string) =>
  EmbeddedStore.open({ dir }).then(
    (store) => store.close().then(() => null),
    (error: unknown) => error,
  );

/** A directory holding a snapshot of `records` records and no journal after it. */
async function snapshotted(dir: string, records: number): Promise<Buffer> {
  const store = await EmbeddedStore.open({ dir });
  for (let i = 0; i < records; i += 1)
    await store.transact((tx) =>
      tx.put('settlements', `s${i}`, { batchNumber: `B${i}`, transactionCount: 7, note: 'é€' }),
    );
  await store.snapshot();
  await store.close();
  return readFile(join(dir, 'snapshot.jsonl'));
}

t.test('a byte flipped anywhere in the snapshot refuses start-up, naming the file and line', async (t) => {
  const dir = t.testdir();
  const original = await snapshotted(dir, 40);
  let seed = 20261122;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 20; i += 1) {
    const damaged = Buffer.from(original);
    const offset = Math.floor(random() * damaged.length);
    damaged[offset]! ^= 1 + Math.floor(random() * 255);
    await writeFile(join(dir, 'snapshot.jsonl'), damaged);
    const error = await openError(dir);
    t.match(error, { code: 'STORE_CORRUPT' }, `flip at byte ${offset} of ${damaged.length}`);
    t.match((error as Error).message, /snapshot\.jsonl line \d+: /, 'names the file and line');
  }
  await writeFile(join(dir, 'snapshot.jsonl'), original);
  t.equal(await openError(dir), null, 'the undamaged snapshot opens');
});

t.test('an edited record or a raised header seq refuses start-up, even with its line checksum redone', async (t) => {
  const dir = t.testdir();
  const original = (await snapshotted(dir, 10)).toString('utf8');

  const edited = original.replace('"transactionCount":7', '"transactionCount":9');
  await writeFile(join(dir, 'snapshot.jsonl'), edited);
  t.match(String(await openError(dir)), /snapshot\.jsonl line 2: checksum mismatch/);

  const raised = original.replace(/"seq":(\d+)/, (_, seq: string) => `"seq":${Number(seq) + 100}`);
  await writeFile(join(dir, 'snapshot.jsonl'), raised);
  t.match(String(await openError(dir)), /snapshot\.jsonl line 1: checksum mismatch/);

  // Someone who also recomputes the line's checksum is caught by the file's.
  const { crc32 } = await import('node:zlib');
  const lines = raised.split('\n');
  const headerJson = lines[0]!.slice(9);
  lines[0] = `${crc32(headerJson).toString(16).padStart(8, '0')} ${headerJson}`;
  await writeFile(join(dir, 'snapshot.jsonl'), lines.join('\n'));
  t.match(String(await openError(dir)), /snapshot\.jsonl line 12: file checksum mismatch/);

  const dropped = original.split('\n');
  dropped.splice(3, 1);
  await writeFile(join(dir, 'snapshot.jsonl'), dropped.join('\n'));
  t.match(String(await openError(dir)), /snapshot\.jsonl line 11: footer counts 10 records, the file holds 9/);
});

t.test('a snapshot of the format before checksums still loads, and is replaced by a checksummed one', async (t) => {
  const dir = t.testdir({
    'snapshot.jsonl': [
      '{"format":"svc-snapshot/1","seq":2}',
      '["items","a",{"v":1}]',
      '["items","b",{"v":2}]',
      '{"end":true,"count":2}',
      '',
    ].join('\n'),
  });
  const store = await EmbeddedStore.open({ dir });
  t.same(await store.get('items', 'b'), { v: 2 });
  await store.snapshot(); // waits for the one started at open
  await store.close();
  const text = await readFile(join(dir, 'snapshot.jsonl'), 'utf8');
  t.match(text.split('\n')[0], /^[0-9a-f]{8} \{"format":"svc-snapshot\/2","seq":2\}$/);
  const reopened = await EmbeddedStore.open({ dir });
  t.teardown(() => reopened.close());
  t.equal(await reopened.count('items'), 2);
});

/** A directory whose one journal file holds three entries, and that file's text. */
async function journalOfThree(dir: string) {
  const store = await EmbeddedStore.open({ dir });
  for (let i = 0; i < 3; i += 1) await store.transact((tx) => tx.put('items', `i${i}`, { i }));
  await store.close();
  const [file] = await listJournalFiles(dir);
  return { dir, file: file!, text: await readFile(file.path, 'utf8') };
}

t.test(
  'a complete last journal line with a bad checksum refuses start-up: it may have been acknowledged',
  async (t) => {
    const { dir, file, text } = await journalOfThree(t.testdir());
    await writeFile(file.path, text.replace('"i":2', '"i":5'));
    const error = await openError(dir);
    t.match(error, { code: 'STORE_CORRUPT' });
    t.match(
      (error as Error).message,
      new RegExp(`${file.name} line 3: checksum mismatch \\(a complete line, so not a torn write\\)`),
    );
    t.equal((await readFile(file.path, 'utf8')).length, text.length, 'nothing was cut off');
  },
);

t.test('a last journal line cut short is dropped, and start-up goes on', async (t) => {
  const { dir, file, text } = await journalOfThree(t.testdir());
  await writeFile(file.path, text.slice(0, -7)); // the newline and a few bytes before it
  const reopened = await EmbeddedStore.open({ dir });
  t.teardown(() => reopened.close());
  t.equal(await reopened.count('items'), 2);
  t.equal(await reopened.get('items', 'i2'), undefined);
});

t.test(
  'thirty short runs with a restart after each: the journal on disk stays bounded and a snapshot exists',
  async (t) => {
    const dir = t.testdir();
    const threshold = 8 * 1024;
    const overBound: string[] = [];
    let largest = 0;
    for (let run = 0; run < 30; run += 1) {
      // Each run writes about 2.5 KiB: far less than the threshold, which only restarts add up to.
      const store = await EmbeddedStore.open({ dir, snapshotMinJournalBytes: threshold });
      for (let i = 0; i < 10; i += 1)
        await store.transact((tx) => tx.put('items', `r${run}-${i}`, { pad: 'x'.repeat(200) }));
      await store.close();
      const files = await listJournalFiles(dir);
      const journal = (await Promise.all(files.map((f) => stat(f.path).then((s) => s.size)))).reduce(
        (a, b) => a + b,
        0,
      );
      const snapshot = await stat(join(dir, 'snapshot.jsonl')).then(
        (s) => s.size,
        () => 0,
      );
      // Compaction starts once the journal outgrows max(threshold, snapshot); one run's writes may come on top.
      if (journal > Math.max(threshold, snapshot) + 2600)
        overBound.push(`run ${run}: journal ${journal} B, snapshot ${snapshot} B`);
      largest = Math.max(largest, journal);
    }
    t.ok((await readdir(dir)).includes('snapshot.jsonl'), 'a snapshot was written');
    t.same(overBound, [], `the journal on disk stayed within its bound (at most ${largest} bytes)`);
    t.ok(
      (await listJournalFiles(dir)).length <= 1,
      'a restart goes on in the newest journal file instead of leaving a file each',
    );
    const store = await EmbeddedStore.open({ dir });
    t.teardown(() => store.close());
    t.equal(await store.count('items'), 300, 'nothing lost to compaction');
  },
);

t.test('a torn line only counts at the end of the newest journal', async (t) => {
  const dir = t.testdir();
  const store = await EmbeddedStore.open({ dir });
  await store.transact((tx) => tx.put('items', 'a', { v: 1 }));
  await store.close();
  const [first] = await listJournalFiles(dir);
  await appendFile(first!.path, '{"seq":2,"crc":"00');
  // A later file makes the unfinished line part of a closed journal.
  await writeFile(join(dir, 'journal-0000000000000002.jsonl'), '');
  t.match(
    String(await openError(dir)),
    /line 2: not a journal entry \(an unfinished line in a journal that was closed\)/,
  );
});
