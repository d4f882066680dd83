import { spawn } from 'node:child_process';
import { mkdtemp, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = await mkdtemp(join(tmpdir(), 'restarts-'));
const runs = Number(process.argv[2] ?? 30);
const perRun = Number(process.argv[3] ?? 1000);
let token = '', merchant = '';
async function start() {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['dist/server/main.js'], { env: { ...process.env, PORT: '0', DATA_DIR: dir, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve) => child.stdout.on('data', (d: Buffer) => { const m = /listening on (\S+)/.exec(String(d)); if (m) resolve(m[1]!); }));
  return { child, url, ms: performance.now() - t0 };
}
const journal = async () => {
  const names = await readdir(dir);
  let bytes = 0, files = 0;
  for (const n of names) if (n.startsWith('journal-')) { files++; bytes += (await stat(join(dir, n))).size; }
  const snap = names.includes('snapshot.jsonl') ? (await stat(join(dir, 'snapshot.jsonl'))).size : 0;
  return { bytes, files, snap };
};
for (let run = 0; run < runs; run += 1) {
  const { child, url, ms } = await start();
  if (!token) {
    const r = await (await fetch(`${url}/console/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'r@example.com', password: '12345678' }) })).json() as any;
    token = r.key.token; merchant = r.merchant_id;
    await fetch(`${url}/api/v1/merchants/${merchant}/pos-terminals`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ serialNumber: 'RS-1' }) });
  }
  for (let i = 0; i < perRun; i += 50) {
    await Promise.all(Array.from({ length: 50 }, () => fetch(`${url}/api/v1/merchants/${merchant}/transactions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ terminal: 'RS-1', amount: 1500, currency: 'USD', description: 'x'.repeat(250) }) }).then((r) => r.text())));
  }
  child.kill('SIGTERM');
  await new Promise((r) => child.on('exit', r));
  const j = await journal();
  console.log(`run ${run + 1}: start ${ms.toFixed(0)} ms; journal ${(j.bytes / 1e6).toFixed(1)} MB in ${j.files} files; snapshot ${(j.snap / 1e6).toFixed(1)} MB`);
}
const { child, ms } = await start();
child.kill('SIGKILL');
console.log(`final start-up: ${ms.toFixed(0)} ms`);
