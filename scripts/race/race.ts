import { seededRandom } from '../../contracts/common/seeded-random.js';
import type { PosClient, Answer } from '../../contracts/clients/pos-client.js';

// The discard-versus-commit race (INTERFACE.md §3):
// the merchant's invalidation and the POS's payment
// confirmation of the same order, under chosen interleavings.

export const interleavings = [
  'discard-first',
  'commit-first',
  'simultaneous',
  'merchant-delayed',
  'pos-delayed',
  'both-jittered',
  'lost-answer-retry',
] as const;
export type Interleaving = (typeof interleavings)[number];

export interface RaceTarget {
  baseUrl: string;
  merchantId: string;
  merchantToken: string;
  terminal: string;
  pos: PosClient;
}

interface Side {
  statuses: number[];
}

export interface OrderRun {
  orderId: string;
  amount: number;
  /** The interleaving's name (a race scenario's: race-NAME.json). */
  interleaving: string;
  merchant: Side;
  pos: Side;
  /** The POS collected the money (its commit was accepted at least once). */
  collected: boolean;
  final: { status: string; history: Array<{ from: string; to: string }> } | null;
}

/** The same seed gives the same amounts and delays. */
export const seeded = seededRandom;

async function merchantCall(
  target: RaceTarget,
  path: string,
  method = 'POST',
  json?: unknown,
): Promise<{ status: number; body: Answer }> {
  const response = await fetch(new URL(`/api/v1/merchants/${target.merchantId}${path}`, target.baseUrl), {
    method,
    headers: {
      authorization: `Bearer ${target.merchantToken}`,
      ...(json ? { 'content-type': 'application/json' } : {}),
    },
    ...(json ? { body: JSON.stringify(json) } : {}),
  });
  return { status: response.status, body: (await response.json().catch(() => ({}))) as Answer };
}

/** The POS confirms every void the merchant asked for, as a terminal eventually would. */
export async function completeVoids(target: RaceTarget, runs: OrderRun[]): Promise<void> {
  for (const run of runs) {
    const current = await merchantCall(target, `/transactions/${run.orderId}`, 'GET');
    if (current.body.data?.status === 'VOID_PENDING') await target.pos.commitVoid(run.orderId);
  }
  for (const run of runs) {
    const current = await merchantCall(target, `/transactions/${run.orderId}`, 'GET');
    run.final =
      current.status === 200 ? { status: current.body.data.status, history: current.body.data.history } : null;
  }
}

const legal = new Set([
  'PENDING->DISCARDED',
  'PENDING->PAID',
  'DISCARDED->PAID',
  'PAID->VOID_PENDING',
  'VOID_PENDING->VOIDED',
]);

/** The invariants; each failure says which order broke which rule. */
export function checkInvariants(runs: OrderRun[]): string[] {
  const failures: string[] = [];
  for (const run of runs) {
    const { orderId, final } = run;
    if (!final) {
      failures.push(`${orderId}: lost (no longer readable)`);
      continue;
    }
    for (const status of [...run.merchant.statuses, ...run.pos.statuses]) {
      if (status !== 200 && status !== 409) failures.push(`${orderId}: an answer was ${status}, not 2xx or 409`);
    }
    const chain = final.history;
    if (chain.some((step) => !legal.has(`${step.from}->${step.to}`)))
      failures.push(`${orderId}: an illegal transition in ${JSON.stringify(chain)}`);
    if (chain.length > 0 && (chain[0]!.from !== 'PENDING' || chain.at(-1)!.to !== final.status))
      failures.push(`${orderId}: the history does not lead from PENDING to ${final.status}`);
    if (chain.some((step, index) => index > 0 && chain[index - 1]!.to !== step.from))
      failures.push(`${orderId}: the history has a gap`);
    if (run.collected) {
      const voidAsked = final.status === 'VOIDED';
      if (final.status !== 'PAID' && !voidAsked)
        failures.push(`${orderId}: money collected but the order is ${final.status}`);
      if (voidAsked && !chain.some((step) => step.to === 'VOID_PENDING'))
        failures.push(`${orderId}: voided without going through VOID_PENDING`);
    } else if (final.status === 'PAID' || final.status === 'VOIDED') {
      failures.push(`${orderId}: recorded as ${final.status} though no payment was accepted`);
    }
  }
  return failures;
}
