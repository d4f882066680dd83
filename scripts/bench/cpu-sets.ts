import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

// bench:scale's pinned mode: each part on CPUs of its own, as separate
// machines would have them. PostgreSQL gets a fixed share, each instance
// one core, the load generators the rest. Pinning is `taskset` (Linux,
// util-linux; the scale bundle carries one), applied to every thread of a
// process, and to the children PostgreSQL's postmaster has forked; those
// it forks later inherit its set.

export interface CpuPlan {
  postgres: number[];
  /** The core of each instance, in the order they start. */
  instances: number[];
  generators: number[];
  /** Too few cores for a share each (a small machine, for the shape only): the generators share the last one. */
  shared: boolean;
}

/** The cores of `total` for PostgreSQL's share, up to `maxInstances` one-core instances, and the generators (at least one core). */
export function planCpus(total: number, postgresCores: number, maxInstances: number): CpuPlan {
  const instances = Math.max(1, Math.min(maxInstances, total - postgresCores - 1));
  const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);
  const left = total - postgresCores - instances;
  return {
    postgres: range(0, Math.min(postgresCores, total)),
    instances: range(Math.min(postgresCores, total - 1), instances),
    generators: left > 0 ? range(postgresCores + instances, left) : [total - 1],
    shared: left <= 0,
  };
}

export const cpuList = (cores: number[]) => cores.join(',');

/** Pins every thread of `pid` to `cores`. */
export function pin(pid: number, cores: number[]): void {
  execFileSync('taskset', ['-a', '-p', '-c', cpuList(cores), String(pid)], { stdio: 'ignore' });
}

/** Pins PostgreSQL: the postmaster (whose pid is the first line of postmaster.pid in `dataDir`) and every process it has forked. */
export function pinPostgres(dataDir: string, cores: number[]): void {
  const postmaster = Number(readFileSync(`${dataDir}/postmaster.pid`, 'utf8').split('\n')[0]);
  pin(postmaster, cores);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const parent = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      if (parent === postmaster) pin(Number(entry), cores);
    } catch {
      // gone meanwhile
    }
  }
}

/** A command run on `cores`: `taskset -c LIST command args…`. */
export const onCores = (cores: number[], command: string, args: string[]): [string, string[]] => [
  'taskset',
  ['-c', cpuList(cores), command, ...args],
];
