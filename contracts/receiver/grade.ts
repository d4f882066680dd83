import { CHECKS, type Check, type CheckContext, type Expectation, type Probe } from './checks.js';
import type { Delivery } from './deliveries.js';
import type { Transport } from './transport.js';

export interface CheckResult {
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
  checks: CheckResult[];
  /** Required checks passed, out of all required checks, in percent. */
  score: number;
  passed: boolean;
}

export interface GradeOptions {
  transport: Transport;
  secret: string;
  now?: () => number;
  maxLatencyMs?: number;
  /** Only these checks (by id), when given. */
  only?: readonly string[];
  /** Called as each check ends, for progress lines. */
  onCheck?: (result: CheckResult) => void;
}

export const passes = (expect: Expectation, status: number | null) => (expect === '2xx' ? status !== null && status >= 200 && status < 300 : status !== null && (status < 200 || status >= 300));

/**
 * Runs the checks against one receiver: the functional ones together, then
 * latency and concurrency each alone, so that nothing else skews them. A
 * check whose `dependsOn` failed is reported as skipped (its probes shown).
 */
export async function gradeReceiver(options: GradeOptions): Promise<Grade> {
  const now = options.now ?? Date.now;
  const ctx: CheckContext = {
    secret: options.secret,
    now,
    maxLatencyMs: options.maxLatencyMs ?? 5000,
    probe: async (name: string, delivery: Delivery, expect: Expectation) => {
      const answer = await options.transport.send(delivery);
      return { name, delivery, expect, answer, passed: passes(expect, answer.status) };
    },
  };
  const chosen = options.only ? CHECKS.filter((check) => options.only!.includes(check.id)) : CHECKS;
  const results = new Map<string, CheckResult>();
  const runOne = async (check: Check) => {
    const started = performance.now();
    const run = await check.run(ctx);
    const passed = run.passed ?? run.probes.every((probe) => probe.passed);
    const result: CheckResult = {
      id: check.id, title: check.title, source: check.source, required: check.required,
      outcome: passed ? 'pass' : 'fail', probes: run.probes, ms: performance.now() - started, ...(run.note ? { note: run.note } : {}),
    };
    results.set(check.id, result);
    options.onCheck?.(result);
  };
  await Promise.all(chosen.filter((check) => check.phase === 1).map(runOne));
  for (const check of chosen.filter((each) => each.phase !== 1).sort((a, b) => a.phase - b.phase)) await runOne(check);

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
  const score = required.length === 0 ? 100 : Math.round((1000 * required.filter((check) => check.outcome === 'pass').length) / required.length) / 10;
  return { target: options.transport.target, checks, score, passed: required.every((check) => check.outcome === 'pass') };
}
