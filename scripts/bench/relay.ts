// npm run bench:relay [-- --missed 1000 --rounds 3]
// How long a relay that comes back takes to get what it missed: N sessions
// whose created event goes to a local URL while no relay is connected, each
// delivery given up on its ladder (the account's clock moved, not waited
// for); then a relay client connects with its cursor, and the time from
// the connection to the last resumed delivery at the local receiver is
// measured. The reference, in the same run: the same N deliveries live,
// with the relay connected, from the first attempt to the last answer.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startRelayClient } from '../../contracts/clients/relay-client.js';
import { createApp } from '../../server/app.js';
import { ManualClock } from '../../server/clock.js';
import { loadConfig } from '../../server/config.js';
import { EmbeddedStore } from '../../server/store/embedded/embedded-store.js';
import { median } from './stats.js';
import type { JsonAnswer } from '../../contracts/json-answer.js';

const { values: args } = parseArgs({
  options: {
    missed: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help) {
  process.stdout.write(`usage: npm run bench:relay -- [--missed N] [--rounds N]
Times a relay's resume of N missed deliveries (default 1000), from its
connection to the last delivery at its local receiver, beside the same N
delivered live in the same round. Rounds (default 3) alternate; medians.
`);
  process.exit(0);
}
const missed = Number(args.missed);
const rounds = Number(args.rounds);
if (!(missed >= 1 && missed <= 100_000) || !(rounds >= 1)) {
  process.stderr.write('bench:relay: --missed must be 1 to 100000 and --rounds at least 1\n');
  process.exit(2);
}

/** A local receiver that counts what it gets. */
async function receiver(): Promise<{ server: Server; url: string; count: () => number }> {
  let count = 0;
  const server = createServer((request, response) => {
    request.resume().on('end', () => {
      count += 1;
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, count: () => count };
}

async function waitUntil(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** A server on the embedded store in a temp dir, on a hand-moved clock, with its relay attached. */
async function startServer() {
  const dir = await mkdtemp(join(tmpdir(), 'bench-relay-'));
  const store = await EmbeddedStore.open({ dir });
  const clock = new ManualClock(Date.now());
  const app = createApp({
    store,
    clock,
    config: { ...loadConfig({}), dataDir: dir, logLevel: 'silent', scryptCost: 1024 },
  });
  const http = createServer(app.callback());
  app.jobs.relay.attach(http);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  app.addOrigin(baseUrl);
  const close = async () => {
    app.jobs.relay.close();
    await new Promise((resolve) => http.close(resolve));
    await store.close();
    await rm(dir, { recursive: true, force: true });
  };
  return { store, clock, app, baseUrl, close };
}

/** One round: `live` delivers with the relay connected; otherwise the relay comes back after every ladder ran out. */
async function round(live: boolean): Promise<number> {
  const { store, clock, app, baseUrl, close } = await startServer();
  const local = await receiver();
  const call = async (path: string, body: unknown, token?: string): Promise<JsonAnswer> => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  const account = await call('/console/register', { email: `bench-${Date.now()}@example.com`, password: '12345678' });
  const token = account.key.token as string;
  const agreement = await call(
    '/api/v1/ext/agreements',
    { name: 'Bench', currency_reference: 'USD', split: false, payment_methods: ['card'] },
    token,
  );
  let cursor: number | null = null;
  const connect = async () => {
    const client = startRelayClient({
      baseUrl,
      token,
      forwardTo: local.url,
      log: () => undefined,
      cursor: { position: cursor, save: (position) => (cursor = position) },
    });
    await client.connected;
    return client;
  };
  // A first connection fixes the cursor at the sequence's start; then it goes away (or stays, live).
  let client = await connect();
  await waitUntil(() => cursor !== null);
  if (!live) {
    client.stop();
    await client.finished;
    await waitUntil(() => !app.jobs.relay.isConnected(account.account_id));
  }
  app.jobs.dispatcher.pause();
  for (let i = 0; i < missed; i += 1)
    await call(
      '/api/v1/ext/payment-sessions/buttons',
      { agreement_id: agreement.agreement_id, amount_reference: 1, webhook_url: 'http://localhost:4000/hook' },
      token,
    );
  app.jobs.dispatcher.resume();
  let ms: number;
  if (live) {
    const started = performance.now();
    while ((await app.jobs.dispatcher.runDue()) > 0);
    await waitUntil(() => local.count() === missed);
    ms = performance.now() - started;
  } else {
    while ((await store.count('deliveries')) > 0) {
      clock.advance(1000);
      while ((await app.jobs.dispatcher.runDue()) > 0);
    }
    const started = performance.now();
    client = await connect();
    await waitUntil(() => local.count() === missed);
    ms = performance.now() - started;
  }
  client.stop();
  local.server.close();
  await close();
  return ms;
}

const resumed: number[] = [];
const liveRuns: number[] = [];
for (let i = 0; i < rounds; i += 1) {
  process.stderr.write(`round ${i + 1} of ${rounds}…\n`);
  resumed.push(await round(false));
  liveRuns.push(await round(true));
}
const resume = median(resumed);
const live = median(liveRuns);
process.stdout.write(`| figure | median of ${rounds} (ms) | per delivery (ms) |
|---|---|---|
| ${missed} missed deliveries: from the relay's reconnection to the last resumed one at the receiver | ${resume.toFixed(0)} | ${(resume / missed).toFixed(2)} |
| reference: the same ${missed} delivered live through the relay | ${live.toFixed(0)} | ${(live / missed).toFixed(2)} |
| resume ÷ live | ${(resume / live).toFixed(2)} | |
`);
process.exit(0);
