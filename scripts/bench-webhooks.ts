// npm run bench:webhooks [-- --events 3000 --rate 200 --duration 6]
// Webhook deliveries per second through the loopback receivers and through
// the relay to a local receiver, and API p99 latency idle against while
// delivering, in one run. The server runs in a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pacedLoad } from './bench/paced-load.js';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '6000' },
    rate: { type: 'string', default: '200' },
    duration: { type: 'string', default: '5' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help) {
  process.stdout.write(`usage: npm run bench:webhooks -- [--events N] [--rate API_REQ_PER_S] [--duration S]
Creates N sessions whose created event goes to the loopback receiver with
delivery paused, then times the drain; the same through the relay (svc-relay in
its own process) to a local receiver; and measures the p99 of session reads at
a steady rate, idle and while the loopback deliveries drain.
`);
  process.exit(0);
}
const events = Number(args.events);
const rate = Number(args.rate);
const duration = Number(args.duration);

const dir = await mkdtemp(join(tmpdir(), 'bench-webhooks-'));
const children: ChildProcess[] = [];
try {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./bench/webhook-server.js', import.meta.url)), dir], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    for (const line of chunk.split('\n').filter(Boolean)) {
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  const nextLine = () => new Promise<string>((resolve) => (lines.length > 0 ? resolve(lines.shift()!) : waiters.push(resolve)));
  const base = `http://127.0.0.1:${/port (\d+)/.exec(await nextLine())![1]}`;
  const pending = async () => {
    child.stdin!.write('pending\n');
    return Number(/pending (\d+)/.exec(await nextLine())![1]);
  };
  const json = async (path: string, body: unknown, token?: string) => {
    const response = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<any>;
  };
  const account = await json('/console/register', { email: 'bench@example.com', password: 'bench password' });
  const token = account.key.token;
  const agreement = await json('/api/v1/ext/agreements', { name: 'bench', currency_reference: 'USD', split: false, payment_methods: ['card'] }, token);
  const probe = await json('/api/v1/ext/payment-sessions/buttons', { agreement_id: agreement.agreement_id, amount_reference: 1 }, token);
  const read = () => ({ method: 'GET', path: `/payment-sessions/${probe.session_id}`, headers: { authorization: `Bearer ${token}` } });

  /**
   * Creates `events` sessions to `url` (Request batches of 100) with delivery
   * paused, then resumes it and times the drain, running `during` meanwhile.
   */
  const drain = async (url: string, during?: () => Promise<unknown>) => {
    child.stdin!.write('pause\n');
    for (let made = 0; made < events; made += 100) {
      const count = Math.min(100, events - made);
      await json('/api/v1/ext/payment-sessions/requests', { sessions: Array.from({ length: count }, () => ({ agreement_id: agreement.agreement_id, amount_reference: 1, webhook_url: url })) }, token);
    }
    const started = performance.now();
    child.stdin!.write('resume\n');
    const sideRun = during?.();
    while ((await pending()) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const seconds = (performance.now() - started) / 1000;
    child.stdin!.write('stats\n');
    await sideRun;
    return events / seconds;
  };

  process.stderr.write('API p99, idle…\n');
  const idle = await pacedLoad({ baseUrl: base, rate, durationS: duration, next: read });
  process.stderr.write(`${events} deliveries through the loopback receiver, with the API measured meanwhile…\n`);
  let busy: Awaited<ReturnType<typeof pacedLoad>> | null = null;
  // The API is measured for as long as the drain lasts (at most `duration` s).
  // (The drain takes about events / 1,200 s at the default pace: the window stays inside it.)
  const drainSeconds = Math.max(1, Math.min(duration, Math.floor(events / 1500)));
  const loopbackRate = await drain(account.hooks.paid, async () => {
    busy = await pacedLoad({ baseUrl: base, rate, durationS: drainSeconds, warmupS: 0, next: read });
  });

  process.stderr.write(`${events} deliveries through the relay to a local receiver…\n`);
  let received = 0;
  const local = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(200).end('ok');
    });
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => local.once('listening', resolve));
  // The relay client runs as its own process, as an integrator runs svc-relay.
  const relay = spawn(process.execPath, [fileURLToPath(new URL('./relay/svc-relay.js', import.meta.url)), '--base-url', base, '--token', token, '--forward-to', `http://127.0.0.1:${(local.address() as AddressInfo).port}/hook`], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(relay);
  await new Promise<void>((resolve) => relay.stdout!.setEncoding('utf8').on('data', (chunk: string) => chunk.includes('relay connected') && resolve()));
  relay.stdout!.resume();
  const relayRate = await drain('http://localhost:4000/hook');
  relay.kill('SIGTERM');
  local.close();

  const b = busy as Awaited<ReturnType<typeof pacedLoad>> | null;
  process.stdout.write(`
Deliveries: ${events} events, each a Request-batch session's created event, created with delivery paused; time from resuming to the last delivery closed.

| run | deliveries/s |
|---|---|
| loopback receiver (in process) | ${loopbackRate.toFixed(0)} |
| relay → local HTTP receiver (${received} received) | ${relayRate.toFixed(0)} |

API: session reads paced at ${rate}/s, open loop.

| API while | p50 ms | p99 ms |
|---|---|---|
| idle | ${idle.p50.toFixed(2)} | ${idle.p99.toFixed(2)} |
| delivering through loopback | ${b ? b.p50.toFixed(2) : 'n/a'} | ${b ? b.p99.toFixed(2) : 'n/a'} |

deliveries/s (loopback): ${loopbackRate.toFixed(0)} (target >= 1000); (relay): ${relayRate.toFixed(0)}
API p99 during delivery / idle: ${b ? (b.p99 / idle.p99).toFixed(2) : 'n/a'} (target <= 1.20)
`);
} finally {
  for (const child of children) child.kill('SIGTERM');
  await rm(dir, { recursive: true, force: true });
}
