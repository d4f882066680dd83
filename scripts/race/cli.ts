#!/usr/bin/env node
// svc-race (npm run race --) [--base-url URL] [--orders N] [--seed S] [--via-serial] [--report DIR] [SCENARIO…]
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PosClient } from '../../contracts/clients/pos-client.js';
import { ScenarioFileError } from '../../contracts/clients/scenario/scenario-format.js';
import { commandLine } from '../cli-args.js';
import { startOwnServer } from '../own-server.js';
import { checkInvariants, completeVoids, interleavings, seeded, type OrderRun, type RaceTarget } from './race.js';
import { bundledRaceFiles, loadRaceScenarios, playRace } from './race-scenarios.js';
import { captions, legend, markdown, summarise, svg, table } from './report.js';
import { WHAT_IT_SHOWS } from './order-paths.js';
import { runSerialRace } from './serial-race.js';
import type { JsonAnswer } from '../../contracts/json-answer.js';
import { exitUnlessAnswering } from '../../contracts/cli/no-answer.js';

const usage = `usage: svc-race [--base-url URL] [--orders N] [--seed S] [--via-serial] [--report DIR] [SCENARIO…]

Drives the race between the merchant's discard and the POS commit of the
same orders. Each interleaving is a scenario file (docs/scenarios.md):
by default the bundled fixtures/scenarios/race-*.json (${interleavings.join(', ')});
name your own files to race your own interleavings (race-NAME.json is
shown as NAME). Each file is played once an order, on one account and
terminal. With --via-serial, also through an emulated terminal and the
bridge over a socat pseudo-terminal pair. Prints a table per
interleaving (the answers each side got, which side the server took
first, the final states, the money recorded), checks each scenario's
expectations and the invariants, and writes DIR/race.md and
DIR/race.svg. The same seed gives the
same amounts and delays (order ids carry a per-run prefix, so runs never
collide on a shared server).

  --base-url URL   a running server; without it the race starts its own
  --orders N       orders per interleaving (default 20)
  --seed S         default 1
  --report DIR     default ./race-report

Exit status: 0 every expectation and invariant held, 1 one broke, 2 a
usage error or a bad scenario file, 3 the server does not answer.
`;

const { values, positionals, fail } = commandLine('svc-race', usage, {
  'base-url': { type: 'string' },
  orders: { type: 'string', default: '20' },
  seed: { type: 'string', default: '1' },
  'via-serial': { type: 'boolean' },
  report: { type: 'string', default: 'race-report' },
});
const orders = Number(values.orders);
const seed = Number(values.seed);
if (!Number.isInteger(orders) || orders < 1 || !Number.isInteger(seed)) fail('--orders and --seed take whole numbers');
const files = positionals.length > 0 ? positionals : await bundledRaceFiles();
const races = await loadRaceScenarios(files).catch((error: Error) =>
  fail(
    error instanceof ScenarioFileError
      ? `${error.file} is not a scenario: ${error.problems.join('; ')}`
      : error.message,
  ),
);

let baseUrl = values['base-url'];
if (baseUrl) await exitUnlessAnswering('svc-race', baseUrl);
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
  }).catch((error: Error & { cause?: { code?: string } }) =>
    fail(`${baseUrl} did not answer (${error.cause?.code ?? error.message})`),
  );
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

process.stdout.write(`${WHAT_IT_SHOWS}\n\n`);
const given = { account, terminal };
const all: OrderRun[] = [];
const summaries = [];
const playFailures: string[] = [];
for (const race of races) {
  process.stdout.write(`${race.name}: ${orders} orders…`);
  const { runs, failures } = await playRace(baseUrl, given, race, orders, seed);
  process.stdout.write(` ${failures.length === 0 ? 'every expectation held' : `${failures.length} failed`}\n`);
  all.push(...runs);
  playFailures.push(...failures);
  summaries.push(summarise(race.name, runs, race.scenario.description));
}
const random = seeded(seed);
if (values['via-serial']) {
  const runs = await runSerialRace(target, orders, random, run);
  await completeVoids(target, runs);
  // Through the terminal, the POS side's answers are the bridge's; what counts is what the server recorded.
  for (const r of runs) r.collected = r.final?.history.some((step) => step.to === 'PAID') ?? false;
  all.push(...runs);
  summaries.push(summarise('serial (bridge + device)', runs, captions.simultaneous));
}
const failures = [...playFailures, ...checkInvariants(all)];
process.stdout.write(
  `\n${table(summaries)}\n\n${legend(summaries)}\n\n${failures.length === 0 ? `All invariants hold over ${all.length} orders.` : `${failures.length} broken (a scenario's expectation or an invariant):\n${failures.join('\n')}`}\n`,
);
await mkdir(values.report!, { recursive: true });
await writeFile(join(values.report!, 'race.md'), markdown(summaries, failures, seed));
await writeFile(join(values.report!, 'race.svg'), svg(summaries));
process.stdout.write(`report: ${join(values.report!, 'race.md')} and race.svg\n`);
await stopOwn?.();
process.exit(failures.length === 0 ? 0 : 1);
