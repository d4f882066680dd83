import {
  CHECKS,
  type ReceiverCheck,
  type ReceiverCheckContext,
  type ReceiverExpectation,
  type Probe,
} from './checks.js';
import { materialise, type GradingDelivery, type DeliveryRecipe } from './deliveries.js';
import type { ReceiverAnswer, Transport } from './transport.js';
import { ownMs, startHostShare, type HostShare } from './host-share.js';

export interface GradedCheck {
  id: string;
  title: string;
  source: string;
  required: boolean;
  outcome: 'pass' | 'fail' | 'skipped';
  probes: Probe[];
  note?: string;
  ms: number;
}

export interface Grade {
  target: string;
  checks: GradedCheck[];
  /** Required checks passed, out of all required checks, in percent. */
  score: number;
  passed: boolean;
  /** Set when no delivery reached the receiver at all: why. */
  unreachable?: string;
  /** Set when the receiver answered and then stopped (crashed): the last delivery it answered. */
  stoppedAfter?: { check: string; probe: string; reason: string };
  /** Advice drawn from the answers as a whole (every signed delivery refused with 401 …). */
  hints: string[];
}

/** What the grade cannot see, said in every report. */
export const NOT_GRADED =
  'Deduplication is not graded: whether a receiver processes a retry twice cannot be seen from its answers (retry-acknowledged only checks a retry is acknowledged, not refused as a duplicate); deduplicate by idempotency-key.';

export interface GradeOptions {
  transport: Transport;
  secret: string;
  now?: () => number;
  maxLatencyMs?: number;
  /** Only these checks (by id), when given. */
  only?: readonly string[];
  /** Called as each check ends, for progress lines. */
  onCheck?: (result: GradedCheck) => void;
}

export const passes = (expect: ReceiverExpectation, status: number | null) =>
  expect === '2xx'
    ? status !== null && status >= 200 && status < 300
    : status !== null && (status < 200 || status >= 300);

const graded = (
  name: string,
  recipe: DeliveryRecipe,
  delivery: GradingDelivery,
  expect: ReceiverExpectation,
  answer: ReceiverAnswer,
  timing?: { withinMs: number; hostMs: number },
): Probe => ({
  name,
  recipe,
  delivery,
  expect,
  answer,
  ...(timing ?? {}),
  passed: passes(expect, answer.status) && (timing === undefined || ownMs(answer, timing.hostMs) <= timing.withinMs),
});

/**
 * Runs the checks against one receiver, each alone and one after another
 * (functional, then latency, then concurrency), so that one mistake, or a
 * receiver that copes badly with load, fails one check. Every delivery is
 * signed at the moment it is sent. A check whose `dependsOn` failed is
 * reported as skipped (its probes shown).
 */
export async function gradeReceiver(options: GradeOptions): Promise<Grade> {
  const now = options.now ?? Date.now;
  // Every answer in the order it came, with its check, to tell a receiver that stopped from one never reached.
  const answered: Array<{ check: string; probe: Probe }> = [];
  let current = '';
  // Started on the first timed delivery: the host's share of each timed answer (host-share.ts).
  let hostShare: Promise<HostShare> | undefined;
  const sent = async (
    name: string,
    recipe: DeliveryRecipe,
    delivery: GradingDelivery,
    expect: ReceiverExpectation,
    withinMs?: number,
  ) => {
    const check = current;
    let probe: Probe;
    if (withinMs === undefined) probe = graded(name, recipe, delivery, expect, await options.transport.send(delivery));
    else {
      const reference = await (hostShare ??= startHostShare(options.secret, withinMs * 4 + 10_000));
      const [answer, host] = await Promise.all([options.transport.send(delivery), reference.measure(delivery)]);
      probe = graded(name, recipe, delivery, expect, answer, { withinMs, hostMs: host.ms });
    }
    answered.push({ check, probe });
    return probe;
  };
  const ctx: ReceiverCheckContext = {
    secret: options.secret,
    now,
    maxLatencyMs: options.maxLatencyMs ?? 5000,
    probe: (name, recipe, expect, probeOptions) =>
      sent(name, recipe, materialise(recipe, options.secret, now()), expect, probeOptions?.withinMs),
    resend: (name, previous, expect) => sent(name, previous.recipe, previous.delivery, expect),
  };
  const chosen = options.only ? CHECKS.filter((check) => options.only!.includes(check.id)) : CHECKS;
  const results = new Map<string, GradedCheck>();
  const runOne = async (check: ReceiverCheck) => {
    current = check.id;
    const started = performance.now();
    const run = await check.run(ctx);
    const passed = run.passed ?? run.probes.every((probe) => probe.passed);
    const result: GradedCheck = {
      id: check.id,
      title: check.title,
      source: check.source,
      required: check.required,
      outcome: passed ? 'pass' : 'fail',
      probes: run.probes,
      ms: performance.now() - started,
      ...(run.note ? { note: run.note } : {}),
    };
    results.set(check.id, result);
    options.onCheck?.(result);
  };
  try {
    for (const check of [...chosen].sort((a, b) => a.phase - b.phase)) await runOne(check);
  } finally {
    if (hostShare) await (await hostShare).close();
  }

  for (const check of chosen) {
    const result = results.get(check.id)!;
    const dependency = check.dependsOn ? results.get(check.dependsOn) : undefined;
    if (dependency && dependency.outcome !== 'pass') {
      result.outcome = 'skipped';
      result.note = `not graded: ${dependency.id} failed, and its mistake hides this one`;
    }
  }
  const checks = chosen.map((check) => results.get(check.id)!);
  const required = checks.filter((check) => check.required);
  const score =
    required.length === 0
      ? 100
      : Math.round((1000 * required.filter((check) => check.outcome === 'pass').length) / required.length) / 10;
  const grade: Grade = {
    target: options.transport.target,
    checks,
    score,
    passed: required.every((check) => check.outcome === 'pass'),
    hints: [],
  };
  describeReach(grade, answered);
  if (signedAllRefused(answered.map((entry) => entry.probe))) {
    grade.hints.push(
      'every correctly signed delivery was refused with 401: the signature is HMAC-SHA256, hex, over svc-timestamp + "." + the raw body bytes exactly as received, ' +
        'keyed with the whole webhook secret, "whsec_" prefix included, as UTF-8 text (not base64-decoded, not without the prefix); compare it with svc-signature',
    );
  }
  return grade;
}

/** Names a receiver nothing reached, or one that answered and then stopped. */
function describeReach(grade: Grade, answered: Array<{ check: string; probe: Probe }>): void {
  if (answered.length === 0) return;
  let lastAnswered = answered.length - 1;
  while (lastAnswered >= 0 && answered[lastAnswered]!.probe.answer.status === null) lastAnswered -= 1;
  if (lastAnswered === -1) {
    if (answered.every((entry) => entry.probe.answer.unreachable))
      grade.unreachable = answered[0]!.probe.answer.error ?? 'no answer';
    return;
  }
  const after = answered.slice(lastAnswered + 1);
  if (after.length > 0 && after.every((entry) => entry.probe.answer.unreachable)) {
    const last = answered[lastAnswered]!;
    grade.stoppedAfter = {
      check: last.check,
      probe: last.probe.name,
      reason: after[0]!.probe.answer.error ?? 'no answer',
    };
  }
}

/** True when every delivery that was correctly signed and fresh, expected to pass, got 401. */
function signedAllRefused(probes: Probe[]): boolean {
  const signedFresh = probes.filter((probe) => probe.expect === '2xx' && probe.answer.status !== null);
  return signedFresh.length > 0 && signedFresh.every((probe) => probe.answer.status === 401);
}
