// npm run bench:webhooks [-- --events 6000 --rate 200 --duration 5 --rounds 3]
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
import { pacedLoad, requireAllAnswered } from './paced-load.js';
import { formatSteal, median } from './stats.js';
import type { JsonAnswer } from '../../contracts/json-answer.js';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '6000' },
    rate: { type: 'string', default: '200' },
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help) {
  process.stdout.write(`usage: npm run bench:webhooks -- [--events N] [--rate API_REQ_PER_S] [--duration S] [--rounds N]
Creates N sessions (default 6000) whose created event goes to the loopback
receiver with delivery paused, then times the drain; the same through the
relay (svc-relay in its own process) to a local receiver; and measures the
p99 of session reads at a steady rate, idle and while the loopback
deliveries drain. Rounds (default 3) are interleaved; medians are reported.
Each API window also shows steal: the share of the machine's CPU time the
hypervisor took for other guests meanwhile (from /proc/stat).
`);
  process.exit(0);
}
const events = Number(args.events);
const rate = Number(args.rate);
const duration = Number(args.duration);
const roundCount = Number(args.rounds);

const dir = await mkdtemp(join(tmpdir(), 'bench-webhooks-'));
const children: ChildProcess[] = [];
try {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./webhook-server.js', import.meta.url)), dir], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
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
  const nextLine = () =>
    new Promise<string>((resolve) => (lines.length > 0 ? resolve(lines.shift()!) : waiters.push(resolve)));
  const base = `http://127.0.0.1:${/port (\d+)/.exec(await nextLine())![1]}`;
  const pending = async () => {
    child.stdin!.write('pending\n');
    return Number(/pending (\d+)/.exec(await nextLine())![1]);
  };
  const json = async (path: string, body: unknown, token?: string) => {
    const response = await fetch(base + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<JsonAnswer>;
  };
  const account = await json('/console/register', { email: 'bench@example.com', password: 'bench password' });
  const token = account.key.token;
  const agreement = await json(
    '/api/v1/ext/agreements',
    { name: 'bench', currency_reference: 'USD', split: false, payment_methods: ['card'] },
    token,
  );
  const probe = await json(
    '/api/v1/ext/payment-sessions/buttons',
    { agreement_id: agreement.agreement_id, amount_reference: 1 },
    token,
  );
  const read = () => ({
    method: 'GET',
    path: `/payment-sessions/${probe.session_id}`,
    headers: { authorization: `Bearer ${token}` },
  });

  /**
   * Creates `count` sessions to `url` (Request batches of 100) with delivery
   * paused, then resumes it and times the drain, running `during` meanwhile.
   */
  const drain = async (url: string, during?: () => Promise<unknown>, count = events) => {
    child.stdin!.write('pause\n');
    for (let made = 0; made < count; made += 100) {
      const size = Math.min(100, count - made);
      await json(
        '/api/v1/ext/payment-sessions/requests',
        {
          sessions: Array.from({ length: size }, () => ({
            agreement_id: agreement.agreement_id,
            amount_reference: 1,
            webhook_url: url,
          })),
        },
        token,
      );
    }
    const started = performance.now();
    child.stdin!.write('resume\n');
    const sideRun = during?.();
    while ((await pending()) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const seconds = (performance.now() - started) / 1000;
    child.stdin!.write('stats\n');
    await sideRun;
    return count / seconds;
  };

  /** API reads at the steady rate; every one must answer 2xx, or the figures mean nothing. */
  const apiReads = async (durationS: number, warmupS?: number) =>
    requireAllAnswered(
      'API reads',
      await pacedLoad({ baseUrl: base, rate, durationS, ...(warmupS === undefined ? {} : { warmupS }), next: read }),
    );

  process.stderr.write('warm-up: API reads…\n');
  await apiReads(1);

  // The relay client runs as its own process, as an integrator runs svc-relay.
  let received = 0;
  const local = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(200).end('ok');
    });
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => local.once('listening', resolve));
  const relay = spawn(
    process.execPath,
    [
      fileURLToPath(new URL('../relay/svc-relay.js', import.meta.url)),
      '--base-url',
      base,
      '--token',
      token,
      '--forward-to',
      `http://127.0.0.1:${(local.address() as AddressInfo).port}/hook`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(relay);
  await new Promise<void>((resolve) =>
    relay.stdout!.setEncoding('utf8').on('data', (chunk: string) => chunk.includes('relay connected') && resolve()),
  );
  relay.stdout!.resume();

  process.stderr.write('warm-up: a drain through each route…\n');
  await drain(account.hooks.paid, undefined, Math.min(events, 1000));
  await drain('http://localhost:4000/hook', undefined, Math.min(events, 1000));

  // The API is measured for as long as the drain lasts (at most `duration` s), and idle for as long.
  // (The drain takes about events / 1,200 s at the default pace: the window stays inside it.)
  const window = Math.max(1, Math.min(duration, Math.floor(events / 1500)));
  type Paced = Awaited<ReturnType<typeof apiReads>>;
  // Interleaved rounds, as in bench:pos: drift of the machine's speed hits idle and busy alike; medians are reported.
  // Each round measures the idle API twice (A, then B): the ratio B / A is what the machine alone swings by.
  const rounds: Array<{ idleA: Paced; idleB: Paced; busy: Paced; loopback: number; relay: number }> = [];
  for (let round = 1; round <= roundCount; round += 1) {
    process.stderr.write(
      `round ${round}: API idle twice, then ${events} deliveries through the loopback receiver with the API measured meanwhile, then ${events} through the relay…\n`,
    );
    const idleA = await apiReads(window, 0);
    const idleB = await apiReads(window, 0);
    let busy: Paced | null = null;
    const loopback = await drain(account.hooks.paid, async () => {
      busy = await apiReads(window, 0);
    });
    const relayed = await drain('http://localhost:4000/hook');
    rounds.push({ idleA, idleB, busy: busy!, loopback, relay: relayed });
  }
  relay.kill('SIGTERM');
  local.close();

  const ms = (value: number) => value.toFixed(2);
  const both = (paced: Paced) => `${ms(paced.p99)} / ${ms(paced.answerP99)}`;
  const fromDue = (r: (typeof rounds)[number]) => r.busy.p99 / r.idleA.p99;
  const answerOnly = (r: (typeof rounds)[number]) => r.busy.answerP99 / r.idleA.answerP99;
  const control = (r: (typeof rounds)[number]) => r.idleB.p99 / r.idleA.p99;
  const deliveryRows = rounds.map((r, i) => `| ${i + 1} | ${r.loopback.toFixed(0)} | ${r.relay.toFixed(0)} |`);
  const apiRows = rounds.map(
    (r, i) =>
      `| ${i + 1} | ${both(r.idleA)} | ${both(r.idleB)} | ${both(r.busy)} | ${fromDue(r).toFixed(2)} / ${answerOnly(r).toFixed(2)} | ${control(r).toFixed(2)} | ${formatSteal(r.idleA.steal)} / ${formatSteal(r.idleB.steal)} / ${formatSteal(r.busy.steal)} |`,
  );
  process.stdout.write(`
Deliveries: ${events} events a run, each a Request-batch session's created event, created with delivery paused; time from resuming to the last delivery closed. Relay: svc-relay in its own process forwarding to a local HTTP receiver (${received} received in all). ${rounds.length} interleaved rounds.

| round | loopback deliveries/s | relay deliveries/s |
|---|---|---|
${deliveryRows.join('\n')}

API: session reads paced at ${rate}/s, open loop, ${window} s a window: idle (A), idle again (B), and during the loopback drain.
p99 in ms, measured from each request's due time / from the request leaving (the generator's own lateness left out).
Steal: the share of the machine's CPU time the hypervisor took for other guests during the window (/proc/stat).

| round | idle A | idle B | delivering | delivering / idle A | idle B / idle A (the machine alone) | steal idle A / idle B / delivering |
|---|---|---|---|---|---|---|
${apiRows.join('\n')}

deliveries/s, median of rounds (target >= 1000): loopback ${median(rounds.map((r) => r.loopback)).toFixed(0)}, relay ${median(rounds.map((r) => r.relay)).toFixed(0)}
API p99 during delivery / idle, median of rounds (target <= 1.20): ${median(rounds.map(fromDue)).toFixed(2)} from due time, ${median(rounds.map(answerOnly)).toFixed(2)} from sending
Idle / idle, the same measurement twice with nothing delivered: ${rounds
    .map(control)
    .map((v) => v.toFixed(2))
    .join(', ')}
`);
} finally {
  for (const child of children) child.kill('SIGTERM');
  await rm(dir, { recursive: true, force: true });
}
