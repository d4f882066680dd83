import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { loadBundledScenarios } from '../../contracts/clients/scenario/bundled.js';
import { raceOrderOf, type RaceOrder } from '../../contracts/clients/scenario/race-order.js';
import { runScenario } from '../../contracts/clients/scenario/run-scenario.js';
import { parseScenario, type Scenario } from '../../contracts/clients/scenario/scenario-format.js';
import { interleavings, type OrderRun } from './race.js';

// The race demo is its scenarios (fixtures/scenarios/race-*.json, or any a
// demo operator writes): each file plays one order under one interleaving;
// the demo plays it once an order, on one account and terminal given to
// every play, and reads from each play what the report needs: the answers
// each side got (the merchant's invalidations, the POS's commits, by their
// requests) and the order as it ended (the file's `final` capture).

export interface RaceScenario {
  /** The interleaving's name: the file's, less `race-` and `.json`. */
  name: string;
  file: string;
  scenario: Scenario;
}

/** The bundled race files, in the order the report shows the interleavings. */
export async function bundledRaceFiles(): Promise<string[]> {
  const rank = (name: string) => {
    const at = (interleavings as readonly string[]).indexOf(name.replace(/^race-/, ''));
    return at < 0 ? interleavings.length : at;
  };
  return (await loadBundledScenarios())
    .filter(({ name }) => name.startsWith('race-'))
    .sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name))
    .map(({ file }) => file);
}

const nameOf = (file: string) =>
  basename(file)
    .replace(/\.(json|ya?ml)$/i, '')
    .replace(/^race-/, '');

export async function loadRaceScenarios(files: string[]): Promise<RaceScenario[]> {
  return Promise.all(
    files.map(async (file) => ({
      name: nameOf(file),
      file,
      scenario: parseScenario(file, await readFile(file, 'utf8')),
    })),
  );
}

export interface RaceAccount {
  /** As /console/register answered it. */
  account: { merchant_id: string; key: { token: string } };
  /** As provisioning answered it. */
  terminal: { serialNumber: string; secret: string };
}

const MERCHANT_DISCARD = /^POST \/api\/v1\/merchants\/[^/]+\/transactions\/[^/]+\/invalidation$/;
const POS_COMMIT = /^POST \/api\/v1\/pos-terminals\/[^/]+\/transactions\/[^/]+\/commit$/;

/** Plays `race` once an order, `count` orders; each play's seed drawn from `seed`, so the same seed plays the same amounts and delays. */
export async function playRace(
  baseUrl: string,
  given: RaceAccount,
  race: RaceScenario,
  count: number,
  seed: number,
): Promise<{ runs: OrderRun[]; failures: string[] }> {
  const runs: OrderRun[] = [];
  const failures: string[] = [];
  for (let i = 0; i < count; i += 1) {
    let final: RaceOrder | undefined;
    const outcome = await runScenario(race.file, race.scenario, {
      baseUrl,
      profile: 'strict',
      seed: seed * 1000 + i,
      given: { ...given },
      onCapture: (name, value) => {
        if (name === 'final') final = raceOrderOf(value);
      },
    });
    const broken = outcome.steps.find((step) => step.problems.length > 0);
    if (broken) failures.push(`${race.name} #${i}: ${broken.name} (${broken.request}): ${broken.problems.join('; ')}`);
    const merchant = outcome.steps.filter((step) => MERCHANT_DISCARD.test(step.request)).map((step) => step.status);
    const pos = outcome.steps.filter((step) => POS_COMMIT.test(step.request)).map((step) => step.status);
    const data: RaceOrder | undefined = final;
    runs.push({
      orderId: data?.orderId ?? `${race.name}-${i}`,
      amount: data?.amount ?? 0,
      interleaving: race.name,
      merchant: { statuses: merchant },
      pos: { statuses: pos },
      collected: pos.includes(200),
      final: data ? { status: data.status, history: data.history } : null,
    });
  }
  return { runs, failures };
}
