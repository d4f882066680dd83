#!/usr/bin/env node
// svc-store check DATA_DIR (npm run store:check --)     svc-store repair DATA_DIR (npm run store:repair --)
// svc-store finish-upgrade [--dry-run] (DATABASE_URL)
import { basename } from 'node:path';
import pg from 'pg';
import { commandLine } from '../cli-args.js';
import { isAppError } from '../../server/errors.js';
import { checkStore, type StoreReport } from '../../server/store/embedded/store-check.js';
import { repairStore } from '../../server/store/embedded/store-repair.js';
import { readSchema } from '../../server/store/postgres/pg-migrations.js';
import { dropLeftovers, leftoversIn, type Leftovers } from '../../server/store/postgres/pg-upgrade.js';

const usage = `usage: svc-store check DATA_DIR [--json]
       svc-store repair DATA_DIR [--json]
       svc-store finish-upgrade [--dry-run] [--json]     (with DATABASE_URL set)

(In a checkout, npm run store:check -- DATA_DIR and npm run store:repair -- DATA_DIR run the same.)

store:check reads the embedded store's data directory (the server's
DATA_DIR) and reports every damaged line of the snapshot and the journal,
the way start-up would find them, without changing anything. It can run
beside a live server. Exit code 0 when start-up would accept the directory,
1 when it would refuse it, 2 for a usage error.

store:repair makes a damaged directory start again. It first copies every
file into DATA_DIR/repair-backup-<time>/, then cuts the journal at its first
damaged entry (every later entry depends on it) and rewrites a damaged
snapshot from its intact records, and says how many acknowledged entries
and records that loses. It refuses to run while a server holds the
directory. Exit code 0 when the directory is whole afterwards and nothing
was lost; 1 when it is still damaged, or when the repair made it start
again by dropping acknowledged entries or records (the report says how
many, and the backup keeps them).

finish-upgrade ends a rolling upgrade of instances sharing a PostgreSQL
database (DATABASE_URL): tables made by an older version keep a generated
column for every field a list reads (that version's instances read them,
and every write computes them again); this version reads the record's
fields through indexes of its own. Run it once no instance of an older
version runs: it drops those columns, and that version's indexes with
them. Start-up says which tables keep such columns. With --dry-run it
only lists them. Exit code 0 when done (or nothing to do), 2 for a usage
error, 1 when the database could not be reached.

  --dry-run    finish-upgrade: list what would be dropped, drop nothing
  --json       print the report as JSON instead of text
  -h, --help   this text
`;

const { values, positionals, fail } = commandLine('svc-store', usage, {
  json: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
});
const [command, dir, ...extra] = positionals;
const say = (line: string) => process.stdout.write(`${line}\n`);

if (command === 'finish-upgrade') {
  if (dir !== undefined) fail(`unexpected arguments: ${positionals.slice(1).join(' ')}`);
  const url = process.env.DATABASE_URL;
  if (!url || !/^postgres(ql)?:\/\//.test(url))
    fail('set DATABASE_URL to the postgres:// database the instances share');
  process.exit(await finishUpgrade(url!, values['dry-run'] === true));
}
if (values['dry-run']) fail('--dry-run is an option of finish-upgrade');
if (command !== 'check' && command !== 'repair') fail('say check, repair or finish-upgrade');
if (!dir) fail('name the data directory');
if (extra.length > 0) fail(`unexpected arguments: ${extra.join(' ')}`);

/** finish-upgrade: the leftovers of an older version listed, and dropped unless `dryRun`. Answers the exit code. */
async function finishUpgrade(url: string, dryRun: boolean): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const found: Leftovers[] = dryRun ? leftoversIn(await readSchema(client)) : await dropLeftovers(client);
    if (values.json) say(JSON.stringify({ dropped: !dryRun, tables: found }, null, 2));
    else if (found.length === 0) say('nothing to drop: every table is laid out by this version');
    else {
      for (const { table, columns } of found)
        say(`${table}: ${dryRun ? 'would drop' : 'dropped'} ${columns.length} column(s): ${columns.join(', ')}`);
      say(dryRun ? 'nothing dropped (--dry-run)' : 'done: every table is laid out by this version');
    }
    return 0;
  } catch (error) {
    process.stderr.write(`svc-store: PostgreSQL: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function describe(report: StoreReport): void {
  const { snapshot, journal } = report;
  if (!snapshot) say('snapshot: none');
  else {
    const covers = snapshot.seq === null ? 'header damaged' : `covers entries up to ${snapshot.seq}`;
    say(
      `snapshot: ${basename(snapshot.path)} (${snapshot.format === 'legacy' ? 'written before checksums: only its shape can be checked' : 'checksummed'}), ${covers}, ${snapshot.records} intact records`,
    );
    for (const damage of snapshot.damage) say(`  DAMAGED line ${damage.line}: ${damage.reason}`);
  }
  const bytes = journal.files.reduce((sum, file) => sum + file.bytes, 0);
  say(
    `journal: ${journal.files.length} file(s), ${bytes} bytes, ${journal.entries} entries to replay, last ${journal.lastSeq}`,
  );
  for (const damage of journal.damage) say(`  DAMAGED ${basename(damage.file)} line ${damage.line}: ${damage.reason}`);
  if (journal.torn) say(`  note: ${basename(journal.torn.file)} line ${journal.torn.line}: ${journal.torn.reason}`);
}

try {
  if (command === 'check') {
    const report = await checkStore(dir!);
    if (values.json) say(JSON.stringify(report, null, 2));
    else {
      describe(report);
      if (!report.damaged) say('result: whole; start-up will accept this directory');
      else {
        const cut = report.journal.firstDamage;
        say(`result: DAMAGED; start-up will refuse this directory.`);
        say(
          `  store:repair would ${cut ? `cut the journal at ${basename(cut.file)} line ${cut.line}, losing ${report.journal.completeLinesFromFirstDamage} acknowledged entries` : 'leave the journal as it is'}` +
            `${report.snapshot?.damage.length ? ` and rewrite the snapshot without its ${report.snapshot.damagedRecords} damaged records` : ''}; it keeps a backup first.`,
        );
      }
    }
    process.exit(report.damaged ? 1 : 0);
  }
  const result = await repairStore(dir!);
  const after = await checkStore(dir!);
  const lost = result.lostAcknowledgedEntries + result.droppedSnapshotRecords > 0;
  if (values.json) say(JSON.stringify({ ...result, after }, null, 2));
  else if (!result.backupDir) say('nothing to repair: start-up will accept this directory');
  else {
    say(`backup of every file before the repair: ${result.backupDir}`);
    for (const action of result.actions) say(`- ${action}`);
    say(
      `lost: ${result.lostAcknowledgedEntries} acknowledged journal entries, ${result.droppedSnapshotRecords} snapshot records`,
    );
    if (after.damaged) say('result: still DAMAGED (see store:check)');
    else if (lost)
      say(
        `result: start-up will accept this directory, but NOT whole: the repair dropped ${result.lostAcknowledgedEntries} acknowledged entries and ${result.droppedSnapshotRecords} records (kept in ${result.backupDir})`,
      );
    else say('result: whole, nothing lost; start-up will accept this directory');
  }
  process.exit(after.damaged || lost ? 1 : 0);
} catch (error) {
  if (isAppError(error, 'STORE_LOCKED') || isAppError(error, 'REPAIR_REFUSED')) {
    process.stderr.write(`svc-store: ${error.message}\n`);
    process.exit(1);
  }
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
    process.stderr.write(`svc-store: ${dir} does not exist\n`);
    process.exit(2);
  }
  throw error;
}
