// npm run race -- [--base-url URL] [--orders N] [--seed S] [--via-serial] [--report DIR]
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PosClient } from '../../contracts/clients/pos-client.js';
import { startOwnServer } from '../own-server.js';
import {
  checkInvariants,
  completeVoids,
  interleavings,
  runInterleaving,
  seeded,
  type OrderRun,
  type RaceTarget,
} from './race.js';
import { legend, markdown, summarise, svg, table } from './report.js';
import { runSerialRace } from './serial-race.js';
import type { JsonAnswer } from '../../contracts/json-answer.js';

const usage = `usage: npm run race -- [--base-url URL] [--orders N] [--seed S] [--via-serial] [--report DIR]

Drives the race between the merchant's discard and the POS commit of the
same orders under each interleaving: ${interleavings.join(', ')}. With
--via-serial, also through an emulated terminal and the bridge over a
socat pseudo-terminal pair. Prints a table per interleaving (the answers
each side got, the final states, the money recorded), checks the
invariants, and writes DIR/race.md and DIR/race.svg. Exit code 1 when an
invariant breaks. The same seed gives the same amounts and latencies (order ids carry a per-run prefix, so runs never collide on a shared server).

  --base-url URL   a running server; without it the race starts its own
  --orders N       orders per interleaving (default 20)
  --seed S         default 1
  --report DIR     default ./race-report
`;

const { values } = parseArgs({
  options: {
    'base-url': { type: 'string' },
    orders: { type: 'string', default: '20' },
    seed: { type: 'string', default: '1' },
    'via-serial': { type: 'boolean' },
    report: { type: 'string', default: 'race-report' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  process.stdout.write(usage);
  process.exit(0);
}
const orders = Number(values.orders);
const seed = Number(values.seed);
if (!Number.isInteger(orders) || orders < 1 || !Number.isInteger(seed)) {
  process.stderr.write(`race: --orders and --seed take whole numbers\n\n${usage}`);
  process.exit(2);
}

let baseUrl = values['base-url'];
let stopOwn: (() => Promise<void>) | null = null;
if (!baseUrl) {
  const own = await startOwnServer();
  baseUrl = own.baseUrl;
  stopOwn = own.stop;
  process.stdout.write(`started a server at ${baseUrl}\n`);
}

const json = async (path: string, body: unknown, token?: string) => {
  const response = await fetch(new URL(path, baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json() as Promise<JsonAnswer>;
};
const run = `r${seed}x${Date.now().toString(36)}`;
const account = await json('/console/register', { email: `${run}@race.example.com`, password: 'race password' });
const terminal = (await json(
  `/api/v1/merchants/${account.merchant_id}/pos-terminals`,
  { serialNumber: `RACE-${run}` },
  account.key.token,
)) as { serialNumber: string; secret: string };
const target: RaceTarget = {
  baseUrl,
  merchantId: account.merchant_id,
  merchantToken: account.key.token,
  terminal: terminal.serialNumber,
  pos: new PosClient({ baseUrl, serialNumber: terminal.serialNumber, secret: terminal.secret }),
};

const random = seeded(seed);
const all: OrderRun[] = [];
const summaries = [];
for (const interleaving of interleavings) {
  const runs = await runInterleaving(target, interleaving, orders, random, run);
  await completeVoids(target, runs);
  all.push(...runs);
  summaries.push(summarise(interleaving, runs));
}
if (values['via-serial']) {
  const runs = await runSerialRace(target, orders, random, run);
  await completeVoids(target, runs);
  // Through the terminal, the POS side's answers are the bridge's; what counts is what the server recorded.
  for (const r of runs) r.collected = r.final?.history.some((step) => step.to === 'PAID') ?? false;
  all.push(...runs);
  summaries.push({ ...summarise('simultaneous', runs), interleaving: 'serial (bridge + device)' as never });
}
const failures = checkInvariants(all);
process.stdout.write(
  `\n${table(summaries)}\n\n${legend(summaries)}\n\n${failures.length === 0 ? `All invariants hold over ${all.length} orders.` : `${failures.length} invariant violations:\n${failures.join('\n')}`}\n`,
);
await mkdir(values.report!, { recursive: true });
await writeFile(join(values.report!, 'race.md'), markdown(summaries, failures, seed));
await writeFile(join(values.report!, 'race.svg'), svg(summaries));
process.stdout.write(`report: ${join(values.report!, 'race.md')} and race.svg\n`);
await stopOwn?.();
process.exit(failures.length === 0 ? 0 : 1);
