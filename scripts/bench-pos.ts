// npm run bench:pos [-- --duration 10 --connections 64]
// Signed settlement POST throughput against a bare Koa hello-world and
// against the same route unsigned, and p99 latency at half the maximum rate,
// all measured in one run. Servers run in child processes; autocannon here.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { computePosSignature } from '../terminal/pos-client.js';
import { pacedLoad, type PacedRequest } from './bench/paced-load.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '64' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help) {
  process.stdout.write(`usage: npm run bench:pos -- [--duration SECONDS] [--connections N]
Starts a bare Koa hello-world and the server (lowdb store in a temp dir) in
child processes, then measures with autocannon: the hello-world, signed
settlement POSTs (a new batchNumber per request), the same route unsigned,
and p99 latency of signed POSTs at half the signed maximum rate.
`);
  process.exit(0);
}
const duration = Number(args.duration);
const connections = Number(args.connections);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

function start(script: string, scriptArgs: string[]): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', here(script), ...scriptArgs], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const port = /port (\d+)/.exec(chunk)?.[1];
      if (port) resolve({ child, url: `http://127.0.0.1:${port}` });
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

async function json(url: string, method: string, body: unknown, token?: string): Promise<any> {
  const response = await fetch(url, { method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Registers an account and provisions a terminal on a server; answers its serial and secret. */
async function provision(baseUrl: string, serial: string): Promise<string> {
  const account = await json(`${baseUrl}/console/register`, 'POST', { email: `bench-${serial}@example.com`, password: 'bench password' });
  const terminal = await json(`${baseUrl}/api/v1/merchants/${account.merchant_id}/pos-terminals`, 'POST', { serialNumber: serial }, account.key.token);
  return terminal.secret;
}

let batch = 0;
/** The next settlement POST: a new batchNumber each time, signed anew when `signed`. */
function nextSettlement(serial: string, secret: string, signed: boolean): PacedRequest {
  batch += 1;
  const path = `/api/v1/pos-terminals/${serial}/settlements`;
  const body = JSON.stringify({
    batchNumber: `B${batch}`,
    transactionCount: batch % 500,
    closedAt: new Date(1_790_000_000_000 + batch * 1000).toISOString(),
    currencyReference: 'USD',
    terminal: serial,
    debitBatch: `D${batch}`,
  });
  const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
  if (signed) {
    const timestamp = new Date().toISOString();
    headers['x-pos-timestamp'] = timestamp;
    headers['x-pos-signature'] = computePosSignature(secret, timestamp, path, body);
  }
  return { method: 'POST', path, headers, body };
}

function settlementRequests(serial: string, secret: string, signed: boolean): autocannon.Request[] {
  return [
    {
      method: 'POST',
      path: `/api/v1/pos-terminals/${serial}/settlements`,
      setupRequest: (request) => {
        // autocannon sets content-length itself.
        const { body, headers: { 'content-length': _length, ...headers } } = nextSettlement(serial, secret, signed);
        return { ...request, body, headers };
      },
    },
  ];
}

async function run(title: string, options: autocannon.Options): Promise<autocannon.Result> {
  process.stderr.write(`${title}…\n`);
  const result = await autocannon({ connections, duration, ...options });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${title}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  return result;
}

const dirs = [await mkdtemp(join(tmpdir(), 'bench-pos-signed-')), await mkdtemp(join(tmpdir(), 'bench-pos-unsigned-'))];
const children: ChildProcess[] = [];
try {
  const bare = await start('./bench/bare-koa.ts', []);
  const signedServer = await start('./bench/pos-server.ts', [dirs[0]!]);
  const unsignedServer = await start('./bench/pos-server.ts', [dirs[1]!, '--unsigned']);
  children.push(bare.child, signedServer.child, unsignedServer.child);
  const secret = await provision(signedServer.url, 'BENCH-1');
  await provision(unsignedServer.url, 'BENCH-1');

  const hello = await run('bare Koa hello-world', { url: bare.url });
  const signed = await run('signed settlement POST', { url: signedServer.url, requests: settlementRequests('BENCH-1', secret, true) });
  const unsigned = await run('unsigned settlement POST (same route)', { url: unsignedServer.url, requests: settlementRequests('BENCH-1', secret, false) });
  const halfRate = Math.floor(signed.requests.average / 2);
  process.stderr.write(`signed settlement POST paced at ${halfRate}/s…\n`);
  const paced = await pacedLoad({ baseUrl: signedServer.url, rate: halfRate, durationS: duration, next: () => nextSettlement('BENCH-1', secret, true) });
  if (paced.non2xx > 0 || paced.errors > 0) throw new Error(`paced run: ${paced.non2xx} non-2xx answers and ${paced.errors} errors`);

  const row = (name: string, r: autocannon.Result) => `| ${name} | ${r.requests.average.toFixed(0)} | ${r.latency.p50} | ${r.latency.p99} |`;
  const vsBare = signed.requests.average / hello.requests.average;
  const vsUnsigned = signed.requests.average / unsigned.requests.average;
  process.stdout.write(`
${connections} connections, ${duration} s each; each server in its own process; durable store (fdatasync before each answer).

| run | req/s | p50 ms | p99 ms |
|---|---|---|---|
${row('bare Koa hello-world (baseline)', hello)}
${row('signed settlement POST, new batch each', signed)}
${row('same route, unsigned', unsigned)}
| signed, paced at half the max rate (${halfRate}/s, open loop) | ${(paced.completed / duration).toFixed(0)} | ${paced.p50.toFixed(1)} | ${paced.p99.toFixed(1)} |

signed / bare Koa: ${(vsBare * 100).toFixed(1)} % (target >= 35 %, stretch 50 %)
signed / unsigned: ${(vsUnsigned * 100).toFixed(1)} % (target >= 85 %)
p99 at half the max rate: ${paced.p99.toFixed(1)} ms (target <= 10 ms)
`);
} finally {
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}
