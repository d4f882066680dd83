import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { LowdbStore } from './lowdb-store.js';

const writer = fileURLToPath(new URL('./crash-writer.ts', import.meta.url));
const KILLS = 30;

/** Runs the writer until `afterMs` past ready, SIGKILLs it, returns the acknowledged ids. */
function runAndKill(dir: string, runId: string, afterMs: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', writer, dir, runId], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let ready = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (!ready && out.includes('ready\n')) {
        ready = true;
        setTimeout(() => child.kill('SIGKILL'), afterMs);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL') return reject(new Error(`writer exited by itself: ${err}`));
      // A line cut by the kill is not an acknowledgement.
      const lines = out.split('\n').slice(0, -1);
      resolve(lines.filter((line) => line !== 'ready'));
    });
  });
}

t.test(`every acknowledged write survives SIGKILL at ${KILLS} random moments`, async (t) => {
  const dir = t.testdir();
  const acknowledged: string[] = [];
  for (let run = 0; run < KILLS; run += 1) {
    const afterMs = 20 + Math.floor(Math.random() * 300);
    acknowledged.push(...(await runAndKill(dir, `r${run}`, afterMs)));

    const store = await LowdbStore.open({ dir });
    const missing = [];
    for (const id of acknowledged) {
      if (!(await store.get('acks', id)) || !(await store.get('mirror', id))) missing.push(id);
    }
    const acks = await store.count('acks');
    const mirrors = await store.count('mirror');
    await store.close();
    t.same(missing, [], `run ${run}: killed ${afterMs} ms in, all ${acknowledged.length} acknowledged writes present`);
    t.equal(acks, mirrors, `run ${run}: no transaction half applied`);
  }
  t.ok(acknowledged.length > KILLS * 10, `wrote ${acknowledged.length} acknowledged records in all`);
});
