import { seededRandom } from '../../contracts/seeded-random.js';
import { PosClient, type PosResponse, type Answer } from '../../contracts/clients/pos-client.js';

// The discard-versus-commit race (spec: States and transitions, Order;
// addendum §3): the merchant's invalidation and the POS's payment
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
  interleaving: Interleaving;
  merchant: Side;
  pos: Side;
  /** The POS collected the money (its commit was accepted at least once). */
  collected: boolean;
  final: { status: string; history: Array<{ from: string; to: string }> } | null;
}

/** The same seed gives the same amounts and delays. */
export const seeded = seededRandom;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

/** Runs `count` orders under one interleaving; answers what each side got and what became of each order. */
export async function runInterleaving(
  target: RaceTarget,
  interleaving: Interleaving,
  count: number,
  random: () => number,
  prefix: string,
): Promise<OrderRun[]> {
  const runs: OrderRun[] = [];
  for (let i = 0; i < count; i += 1) {
    const orderId = `${prefix}-${interleaving}-${i}`;
    const amount = 100 + Math.floor(random() * 99_900);
    const latency = 1 + Math.floor(random() * 15);
    // Each side's own delay, 0-8 ms, drawn per order: which request the server takes first varies order by order.
    const jitter = { merchant: Math.floor(random() * 9), pos: Math.floor(random() * 9) };
    const created = await merchantCall(target, '/transactions', 'POST', {
      orderId,
      terminal: target.terminal,
      amount,
      currency: 'USD',
    });
    if (created.status !== 201) throw new Error(`creating ${orderId}: ${created.status} ${created.body.message ?? ''}`);
    const run: OrderRun = {
      orderId,
      amount,
      interleaving,
      merchant: { statuses: [] },
      pos: { statuses: [] },
      collected: false,
      final: null,
    };
    const invalidate = async () =>
      run.merchant.statuses.push((await merchantCall(target, `/transactions/${orderId}/invalidation`)).status);
    const commit = async () => {
      const answer: PosResponse<Answer> = await target.pos.commitPayment(orderId, {
        authorizationCode: `AUTH${i}`,
        paidAt: new Date().toISOString(),
        amount,
      });
      run.pos.statuses.push(answer.status);
      if (answer.status === 200) run.collected = true;
    };
    switch (interleaving) {
      case 'discard-first':
        await invalidate();
        await commit();
        break;
      case 'commit-first':
        await commit();
        await invalidate();
        break;
      case 'simultaneous':
        await Promise.all([invalidate(), commit()]);
        break;
      case 'merchant-delayed':
        await Promise.all([commit(), sleep(latency).then(invalidate)]);
        break;
      case 'pos-delayed':
        await Promise.all([invalidate(), sleep(latency).then(commit)]);
        break;
      case 'both-jittered':
        await Promise.all([sleep(jitter.merchant).then(invalidate), sleep(jitter.pos).then(commit)]);
        break;
      case 'lost-answer-retry':
        // Both sides lose their first answer and send again, signed anew.
        await Promise.all([commit().then(commit), invalidate().then(invalidate)]);
        break;
    }
    runs.push(run);
  }
  return runs;
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
