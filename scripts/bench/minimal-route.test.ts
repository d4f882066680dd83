import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { journalFileName } from '../../server/store/embedded/journal-files.js';
import { computePosSignature } from '../../contracts/clients/pos-client.js';

const script = fileURLToPath(new URL('./minimal-route.ts', import.meta.url));
const secret = 'ab'.repeat(32);

// bench:pos compares the real route with this one, so it must do the same durable work for a good signature.
t.test('the reference route answers a signed settlement once it is on disk, and refuses a bad signature', async (t) => {
  const dir = t.testdir();
  const child = spawn(process.execPath, ['--import', 'tsx', script, dir, secret], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.teardown(() => void child.kill());
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  const base = `http://127.0.0.1:${/port (\d+)/.exec(String(chunk))![1]}`;
  const path = '/api/v1/pos-terminals/SN-1/settlements';
  const body = JSON.stringify({ batchNumber: 'B1', transactionCount: 3 });
  const timestamp = new Date().toISOString();
  const post = (signature: string) =>
    fetch(base + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-pos-timestamp': timestamp, 'x-pos-signature': signature },
      body,
    });

  const answer = await post(computePosSignature(secret, timestamp, path, body));
  t.equal(answer.status, 200);
  t.match(await answer.json(), { data: { batchNumber: 'B1', transactionCount: 3, receivedAt: String } });
  t.match(await readFile(join(dir, journalFileName(1)), 'utf8'), /"batchNumber":"B1"/, 'written before the answer');
  t.equal((await post(computePosSignature('cd'.repeat(32), timestamp, path, body))).status, 401);
  t.equal((await post('not hex')).status, 401);
});
