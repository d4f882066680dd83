import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';

// What bench:scale reads of the machine while it runs (CPU time by part,
// from /proc), and PostgreSQL's own ceiling (pgbench) for its reference.

/** CPU time used so far (ms, Linux /proc; 0 elsewhere) by the processes `instancePids`, and by PostgreSQL's processes. */
export async function cpuByPart(instancePids: number[]): Promise<{ instances: number; postgres: number }> {
  const cpuMsOf = async (pid: number | string) => {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const afterName = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, fields 14 and 15 of the line, in clock ticks (100 a second on Linux); cutime and cstime
    // (16 and 17) hold what children that ended used, so backends gone meanwhile (pgbench's) still count.
    return {
      name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
      ms: (Number(afterName[11]) + Number(afterName[12])) * 10 || 0,
      children: (Number(afterName[13]) + Number(afterName[14])) * 10 || 0,
    };
  };
  const instances = (await Promise.all(instancePids.map(cpuMsOf))).reduce((sum, each) => sum + each.ms, 0);
  const pids = await readdir('/proc').catch(() => [] as string[]);
  const all = await Promise.all(pids.filter((name) => /^\d+$/.test(name)).map(cpuMsOf));
  const postgres = all
    .filter((each) => each.name === 'postgres')
    .reduce((sum, each) => sum + each.ms + each.children, 0);
  return { instances, postgres };
}

/** The machine's CPU counters (Linux /proc/stat): busy and total jiffies; zeros elsewhere. */
export async function cpuTimes(): Promise<{ busy: number; total: number }> {
  const line = (await readFile('/proc/stat', 'utf8').catch(() => 'cpu 0')).split('\n')[0]!;
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

export interface CeilingRun {
  db: pg.Client;
  /** The cluster's connection URL (host is its socket folder). */
  url: string;
  /** PostgreSQL's binaries. */
  bin: string;
  seconds: number;
  cores: number;
  /** Temporary folders, removed by the caller. */
  dirs: string[];
  /** The command line pgbench runs with (on the generators' cores when pinned). */
  command: (command: string, args: string[]) => [string, string[]];
}

/** pgbench: one durable INSERT of the same JSON body a transaction, 32 clients: transactions a second. */
export async function pgbenchInsertCeiling(run: CeilingRun): Promise<{ tps: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-scale-'));
  run.dirs.push(dir);
  await run.db.query('CREATE TABLE IF NOT EXISTS pgbench_ceiling (id bigserial PRIMARY KEY, data jsonb NOT NULL)');
  const body = JSON.stringify({
    batchNumber: 'B1',
    transactionCount: 12,
    closedAt: '2026-11-01T00:00:00.000Z',
    currencyReference: 'USD',
    terminal: 'SCALE-0',
    debitBatch: 'D1',
  });
  const script = join(dir, 'insert.sql');
  await writeFile(script, `INSERT INTO pgbench_ceiling (data) VALUES ('${body}');\n`);
  const url = new URL(run.url);
  const args = [
    '-n',
    '-c',
    '32',
    '-j',
    String(Math.max(1, Math.min(8, run.cores))),
    '-T',
    String(run.seconds),
    '-f',
    script,
    '-h',
    url.searchParams.get('host')!,
    '-p',
    url.searchParams.get('port')!,
    '-U',
    'postgres',
    'postgres',
  ];
  const out = await new Promise<string>((resolve, reject) =>
    execFile(...run.command(join(run.bin, 'pgbench'), args), (error, stdout, stderr) =>
      error ? reject(new Error(stderr || error.message)) : resolve(stdout),
    ),
  );
  return { tps: Number(/tps = ([\d.]+)/.exec(out)?.[1] ?? 0) };
}
