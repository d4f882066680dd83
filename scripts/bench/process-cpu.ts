import { readdirSync, readFileSync } from 'node:fs';

// CPU time from /proc: of one process, and of every PostgreSQL backend on the machine.

/** CPU time (user + system) a process has used, in ms, from /proc; null where there is no /proc. */
export function cpuMs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1000 / 100);
  } catch {
    return null;
  }
}

/** CPU time of each PostgreSQL process on the machine (the throwaway cluster's backends), in ms, by pid. */
export function postgresCpu(): Map<string, number> {
  const byPid = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.split(') ')[1]!.split(' ');
      byPid.set(entry, (Number(fields[11]) + Number(fields[12])) * (1000 / 100));
    } catch {
      // gone meanwhile
    }
  }
  return byPid;
}

/** PostgreSQL's CPU since `before`, in ms: by process, so backends that ended meanwhile (idle pool connections) take nothing away. */
export function postgresCpuSince(before: Map<string, number>): number {
  let total = 0;
  for (const [pid, ms] of postgresCpu()) total += ms - (before.get(pid) ?? 0);
  return total;
}
