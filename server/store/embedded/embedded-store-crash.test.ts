import t from 'tap';
import { runWriterUntilKilled } from './testing/crash-writer-run.js';
import { EmbeddedStore } from './embedded-store.js';

const KILLS = 30;

t.test(`every acknowledged write survives SIGKILL at ${KILLS} random moments`, async (t) => {
  const dir = t.testdir();
  const acknowledged: string[] = [];
  for (let run = 0; run < KILLS; run += 1) {
    const afterMs = 20 + Math.floor(Math.random() * 300);
    acknowledged.push(...(await runWriterUntilKilled(dir, `r${run}`, afterMs)).acknowledged);

    const store = await EmbeddedStore.open({ dir });
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
