// A child process for the crash test: writes without pause through the
// lowdb store and prints the id of each write once it is acknowledged.
// The parent kills it with SIGKILL and checks every printed id survived.
import { LowdbStore } from './lowdb-store.js';

const [dir, runId] = process.argv.slice(2);
if (!dir || !runId) {
  process.stderr.write('usage: crash-writer DIR RUN_ID\n');
  process.exit(2);
}

const store = await LowdbStore.open({ dir, snapshotMinJournalBytes: 32 * 1024 });
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
  }
}
await Promise.all(Array.from({ length: 16 }, writeForever));
