import { execFile } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { listJournalFiles } from './journal-files.js';
import { EmbeddedStore } from './embedded-store.js';
import { checkStore } from './store-check.js';
import { repairStore } from './store-repair.js';

const cli = fileURLToPath(new URL('../../../scripts/store/cli.ts', import.meta.url));
const run = promisify(execFile);

/**
 * A snapshot of 10 records, then 12 journal entries after it in two files
 * (as versions before 0.2 left one per start, and a failed snapshot leaves).
 */
async function populated(dir: string): Promise<void> {
  const store = await EmbeddedStore.open({ dir });
  for (let i = 0; i < 10; i += 1) await store.transact((tx) => tx.put('items', `s${i}`, { i }));
  await store.snapshot();
  for (let i = 0; i < 6; i += 1) await store.transact((tx) => tx.put('items', `a${i}`, { i }));
  for (let i = 0; i < 6; i += 1) await store.transact((tx) => tx.put('items', `b${i}`, { i }));
  await store.close();
  const [file] = await listJournalFiles(dir);
  const lines = (await readFile(file!.path, 'utf8')).split('\n');
  await writeFile(file!.path, `${lines.slice(0, 6).join('\n')}\n`);
  await writeFile(join(dir, 'journal-0000000000000017.jsonl'), lines.slice(6).join('\n'));
}

async function damageLine(path: string, lineIndex: number, from: string, to: string): Promise<void> {
  const lines = (await readFile(path, 'utf8')).split('\n');
  lines[lineIndex] = lines[lineIndex]!.replace(from, to);
  await writeFile(path, lines.join('\n'));
}

async function filesOf(dir: string): Promise<Record<string, string>> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.jsonl'));
  return Object.fromEntries(
    await Promise.all(names.map(async (name) => [name, await readFile(join(dir, name), 'utf8')] as const)),
  );
}

t.test('check reports every damaged line of the snapshot and the journal, and changes nothing', async (t) => {
  const dir = t.testdir();
  await populated(dir);
  const [first, second] = await listJournalFiles(dir);
  await damageLine(join(dir, 'snapshot.jsonl'), 3, '"i":2', '"i":3');
  await damageLine(join(dir, 'snapshot.jsonl'), 6, '"i":5', '"i":6');
  await damageLine(first!.path, 2, '"i":2', '"i":9');
  await writeFile(second!.path, `${await readFile(second!.path, 'utf8')}{"seq":23,"crc":"00`); // a torn write: not damage
  const before = await filesOf(dir);

  const report = await checkStore(dir);
  t.equal(report.damaged, true);
  t.same(
    report.snapshot!.damage.map((d) => [d.line, d.reason]),
    [
      [4, 'checksum mismatch'],
      [7, 'checksum mismatch'],
      [12, 'file checksum mismatch (a line was added, lost, moved or changed)'],
    ],
  );
  t.equal(report.snapshot!.damagedRecords, 2);
  t.same(
    report.journal.damage.map((d) => [d.file, d.line, d.reason]),
    [[first!.path, 3, 'checksum mismatch']],
  );
  t.equal(report.journal.completeLinesFromFirstDamage, 10, 'the damaged entry and the 9 after it were acknowledged');
  t.match(report.journal.torn, { file: second!.path, line: 7 });
  t.same(await filesOf(dir), before, 'not a byte changed');

  const out = await run(process.execPath, ['--import', 'tsx', cli, 'check', dir]).then(
    () => null,
    (e: { code: number; stdout: string }) => e,
  );
  t.equal(out?.code, 1, 'store:check exits 1 on damage');
  t.match(out?.stdout, /DAMAGED line 4: checksum mismatch/);
  t.match(out?.stdout, /DAMAGED journal-0000000000000011\.jsonl line 3: checksum mismatch/);
  t.match(out?.stdout, /losing 10 acknowledged entries/);
});

t.test(
  'repair keeps a backup, cuts the journal at the first damage, rewrites the snapshot, and says what that lost',
  async (t) => {
    const dir = t.testdir();
    await populated(dir);
    const [first] = await listJournalFiles(dir);
    await damageLine(join(dir, 'snapshot.jsonl'), 3, '"i":2', '"i":3');
    await damageLine(first!.path, 2, '"i":2', '"i":9');
    const before = await filesOf(dir);

    const result = await repairStore(dir, new Date('2026-11-22T10:00:00Z'));
    t.equal(result.lostAcknowledgedEntries, 10);
    t.equal(result.droppedSnapshotRecords, 1);
    t.same(await filesOf(result.backupDir!), before, 'the backup holds every file as it was');
    t.equal((await checkStore(dir)).damaged, false, 'whole afterwards');

    const store = await EmbeddedStore.open({ dir });
    t.teardown(() => store.close());
    t.equal(await store.count('items'), 9 + 2, 'nine intact snapshot records and the two entries before the cut');
    t.equal(await store.get('items', 's2'), undefined, 'the damaged record is gone, not served wrong');
  },
);

t.test('a snapshot whose header seq was changed is repaired to the position its journal starts at', async (t) => {
  const dir = t.testdir();
  await populated(dir);
  await damageLine(join(dir, 'snapshot.jsonl'), 0, '"seq":10', '"seq":110');
  const result = await repairStore(dir);
  t.equal(result.lostAcknowledgedEntries, 0);
  const store = await EmbeddedStore.open({ dir });
  t.teardown(() => store.close());
  t.equal(store.openStats.snapshotSeq, 10);
  t.equal(await store.count('items'), 22, 'nothing lost');
});

t.test('repair refuses a directory a server holds; on a whole one it does nothing', async (t) => {
  const dir = t.testdir();
  await populated(dir);
  const store = await EmbeddedStore.open({ dir });
  await t.rejects(repairStore(dir), { code: 'STORE_LOCKED' });
  await store.close();
  const result = await repairStore(dir);
  t.equal(result.backupDir, null);
  const out = await run(process.execPath, ['--import', 'tsx', cli, 'check', dir]);
  t.match(out.stdout, /result: whole/);
});

t.test('a checksummed snapshot whose header was rewritten in the old format loses nothing in a repair', async (t) => {
  const dir = t.testdir();
  await populated(dir);
  const path = join(dir, 'snapshot.jsonl');
  const lines = (await readFile(path, 'utf8')).split('\n');
  lines[0] = '{"format":"svc-snapshot/1","seq":10}';
  await writeFile(path, lines.join('\n'));

  await t.rejects(EmbeddedStore.open({ dir }), /store corrupt: .*snapshot\.jsonl line/, 'start-up refuses it');
  const report = await checkStore(dir);
  t.equal(report.snapshot!.format, 'checksummed');
  t.equal(report.snapshot!.records, 10, 'every record line is intact');
  t.equal(report.snapshot!.damagedRecords, 0);
  t.match(report.snapshot!.damage[0], { line: 1, reason: /old format .* the header was changed/ });

  const out = await run(process.execPath, ['--import', 'tsx', cli, 'repair', dir]);
  t.match(out.stdout, /lost: 0 acknowledged journal entries, 0 snapshot records/);
  t.match(out.stdout, /result: whole, nothing lost/);
  const store = await EmbeddedStore.open({ dir });
  t.teardown(() => store.close());
  t.equal(await store.count('items'), 22, 'every record is back');
});

t.test('an old-format snapshot that disagrees with the journal after it is not trusted', async (t) => {
  const legacy = (seq: number) =>
    [`{"format":"svc-snapshot/1","seq":${seq}}`, '["items","a",{"v":1}]', '{"end":true,"count":1}', ''].join('\n');
  // A genuine journal after seq 2, written by the store; then the snapshot is put back in the old format.
  const dir = t.testdir({ 'snapshot.jsonl': legacy(2) });
  const store = await EmbeddedStore.open({ dir });
  await store.snapshot(); // the checksummed rewrite start-up begins: the journal after it starts at 3
  for (let i = 0; i < 3; i += 1) await store.transact((tx) => tx.put('items', `j${i}`, { i }));
  await store.close();
  const [journal] = await listJournalFiles(dir);
  await writeFile(join(dir, 'snapshot.jsonl'), legacy(journal!.firstSeq + 2));
  await t.rejects(
    EmbeddedStore.open({ dir }),
    /old format .* no journal file starts at/,
    'start-up refuses a header the journal contradicts',
  );
  const report = await checkStore(dir);
  t.equal(report.damaged, true);
  t.match(report.snapshot!.damage[0]!.reason, /cannot be trusted/);
  t.equal(report.snapshotSeq, journal!.firstSeq - 1, 'the position is taken from the journal instead');

  await writeFile(join(dir, 'snapshot.jsonl'), legacy(journal!.firstSeq - 1));
  const agreeing = await EmbeddedStore.open({ dir });
  t.equal(await agreeing.count('items'), 4, 'one that agrees loads: its record and the journal after it');
  await agreeing.snapshot(); // the checksummed rewrite it begins, done before the directory goes
  await agreeing.close();
});

t.test('a repair that drops records never calls the directory whole, and exits 1', async (t) => {
  const dir = t.testdir();
  await populated(dir);
  await damageLine(join(dir, 'snapshot.jsonl'), 3, '"i":2', '"i":3');
  const out = await run(process.execPath, ['--import', 'tsx', cli, 'repair', dir]).then(
    () => null,
    (e: { code: number; stdout: string }) => e,
  );
  t.equal(out?.code, 1);
  t.notMatch(out?.stdout, /result: whole/);
  t.match(out?.stdout, /NOT whole: the repair dropped 0 acknowledged entries and 1 records/);
});
