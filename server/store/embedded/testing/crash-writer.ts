// A child process for the crash tests: writes without pause (or at
// CRASH_WRITER_RATE transactions a second) through the embedded store and
// prints the id of each write once it is acknowledged. The parent kills it
// with SIGKILL and checks every printed id survived. How long the store
// took to open goes to stderr as `opened {"ms":…,"journalBytes":…}`.
// CRASH_WRITER_MIN_JOURNAL_BYTES and CRASH_WRITER_LOOP_SHARE set the
// store's compaction trigger and snapshot pacing.
import { EmbeddedStore } from '../embedded-store.js';

const [dir, runId] = process.argv.slice(2);
if (!dir || !runId) {
  process.stderr.write('usage: crash-writer DIR RUN_ID\n');
  process.exit(2);
}
const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const rate = env('CRASH_WRITER_RATE', 0);
const WRITERS = 16;

const started = performance.now();
const store = await EmbeddedStore.open({
  dir,
  snapshotMinJournalBytes: env('CRASH_WRITER_MIN_JOURNAL_BYTES', 32 * 1024),
  snapshotPacing: { loopShare: env('CRASH_WRITER_LOOP_SHARE', 0.25) },
});
process.stderr.write(
  `opened ${JSON.stringify({ ms: performance.now() - started, journalBytes: store.openStats.journalBytes, records: store.openStats.records })}\n`,
);
process.stdout.write('ready\n');

let next = 0;
async function writeForever(): Promise<never> {
  for (;;) {
    const id = `${runId}-${next++}`;
    // Two records per transaction: the parent also checks atomicity.
    await store.transact((tx) => {
      tx.insert('acks', id, { id, pad: 'x'.repeat(64) });
      tx.put('mirror', id, { id });
    });
    process.stdout.write(`${id}\n`);
    // A paced writer: each of the writers waits its share of a second.
    if (rate > 0) await new Promise((resolve) => setTimeout(resolve, (1000 * WRITERS) / rate));
  }
}
await Promise.all(Array.from({ length: WRITERS }, writeForever));
