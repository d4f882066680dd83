import { readFileSync } from 'node:fs';

/** The p-th percentile (nearest rank) of a list of numbers. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** The middle value of rounds (the upper one of an even count). */
export function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

/**
 * The machine's CPU time so far, from /proc/stat (in clock ticks): all of
 * it, and what the hypervisor took for other guests ("steal"), during which
 * this machine's processes could not run however ready. Null without /proc.
 */
export function machineCpu(): { total: number; steal: number } | null {
  try {
    return parseProcStat(readFileSync('/proc/stat', 'utf8'));
  } catch {
    return null;
  }
}

export function parseProcStat(text: string): { total: number; steal: number } {
  const fields = /^cpu +(.*)$/m.exec(text)?.[1]?.trim().split(/\s+/).map(Number);
  if (!fields || fields.length < 8 || fields.some(Number.isNaN)) throw new Error('no cpu line in /proc/stat');
  // user nice system idle iowait irq softirq steal [guest guest_nice, already counted in user and nice]
  return { total: fields.slice(0, 8).reduce((sum, value) => sum + value, 0), steal: fields[7]! };
}

/** Steal as a percentage of the machine's CPU time between two readings; null when either is missing. */
export function stealPercent(
  before: ReturnType<typeof machineCpu>,
  after: ReturnType<typeof machineCpu>,
): number | null {
  if (!before || !after || after.total <= before.total) return null;
  return ((after.steal - before.steal) / (after.total - before.total)) * 100;
}

/** Steal as shown in a bench table. */
export function formatSteal(steal: number | null): string {
  return steal === null ? 'n/a' : `${steal.toFixed(1)} %`;
}
