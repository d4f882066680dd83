import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { listJournalFiles } from './journal-files.js';
import { LowdbStore } from './lowdb-store.js';

// Kills that come faster than a snapshot completes must not stop
// compaction: before, each start began a paced snapshot that the next kill
// cut short, the journal grew with every run, and so did start-up time
// (0.4 s to 4.1 s and 19 journal files in the audit). Here the writer is
// killed 50 times, 0.3 to 2 s after it is ready, while it writes 3,000
// transactions a second; its snapshots are paced to 5 % of the event loop,
// so that one takes longer than most lives, as a large store's does.

const writer = fileURLToPath(new URL('./crash-writer.ts', import.meta.url));
const KILLS = 50;

interface Life {
  acknowledged: string[];
  openMs: number;
}

function liveAndDie(dir: string, runId: string, lifeMs: number): Promise<Life> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', writer, dir, runId], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CRASH_WRITER_RATE: '3000', CRASH_WRITER_MIN_JOURNAL_BYTES: String(1 << 20), CRASH_WRITER_LOOP_SHARE: '0.05' },
    });
    let out = '';
    let err = '';
    let ready = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (!ready && out.includes('ready\n')) {
        ready = true;
        setTimeout(() => child.kill('SIGKILL'), lifeMs);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL') return reject(new Error(`writer exited by itself: ${err}`));
      const opened = /opened (\{.*\})/.exec(err);
      if (!opened) return reject(new Error(`the writer did not say how long it took to open: ${err}`));
      const lines = out.split('\n').slice(0, -1); // a line cut by the kill is not an acknowledgement
      resolve({ acknowledged: lines.filter((line) => line !== 'ready'), openMs: (JSON.parse(opened[1]!) as { ms: number }).ms });
    });
  });
}

t.test(`${KILLS} kills 0.3-2 s apart while the store grows: start-up stays under 2 s and compaction keeps up`, async (t) => {
  t.setTimeout(300_000);
  const dir = t.testdir();
  const acknowledged: string[] = [];
  const openMs: number[] = [];
  let mostJournalFiles = 0;
  for (let run = 0; run < KILLS; run += 1) {
    const life = await liveAndDie(dir, `r${run}`, 300 + Math.floor(Math.random() * 1700));
    acknowledged.push(...life.acknowledged);
    openMs.push(life.openMs);
    mostJournalFiles = Math.max(mostJournalFiles, (await listJournalFiles(dir)).length);
  }
  const slowest = Math.max(...openMs);
  t.comment(`store open: first ${openMs[0]!.toFixed(0)} ms, last ${openMs.at(-1)!.toFixed(0)} ms, slowest ${slowest.toFixed(0)} ms; at most ${mostJournalFiles} journal files; ${acknowledged.length} writes acknowledged`);
  t.ok(slowest < 2_000, `every start-up under 2 s (slowest ${slowest.toFixed(0)} ms)`);
  t.ok(mostJournalFiles <= 4, `the journal never piles up (at most ${mostJournalFiles} files)`);

  const store = await LowdbStore.open({ dir });
  t.teardown(() => store.close());
  let missing = 0;
  for (const id of acknowledged) if (!(await store.get('acks', id))) missing += 1;
  t.equal(missing, 0, `all ${acknowledged.length} acknowledged writes are there`);
});
