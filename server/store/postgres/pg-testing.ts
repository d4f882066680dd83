import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Test } from 'tap';
import { missingTool } from '../../../contracts/common/missing-tool.js';

/**
 * The PostgreSQL server binaries: those POSTGRES_BIN names (the scale
 * bench's bundle, docs/scale-bench-bundle.md), else Debian's postgresql
 * package's, if installed.
 */
export function postgresBin(): string | null {
  const named = process.env.POSTGRES_BIN;
  if (named) return existsSync(join(named, 'initdb')) ? named : null;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).sort().reverse();
  for (const version of versions)
    if (existsSync(join(root, version, 'bin', 'initdb'))) return join(root, version, 'bin');
  return null;
}

/** Why PostgreSQL tests cannot run here, or false. Under CI they run (.ci/run installs postgresql). */
export function postgresSkip(): string | false {
  return missingTool(
    'PostgreSQL (initdb under /usr/lib/postgresql)',
    () => postgresBin() !== null,
    "install Debian's postgresql package",
  );
}

/**
 * A throwaway PostgreSQL cluster for a test: initdb into a temp dir, started
 * on a Unix socket only (nothing listens on the network), stopped and
 * removed when the test ends. Answers its connection string.
 */
export function startPostgres(t: Test): string {
  const cluster = startThrowawayPostgres();
  t.teardown(cluster.stop);
  return cluster.url;
}

/** A throwaway database for a test, and a client on it as its superuser, ended with the test. */
export async function startPostgresWithAdmin(t: Test): Promise<{ connectionString: string; admin: pg.Client }> {
  const connectionString = startPostgres(t);
  const admin = new pg.Client({ connectionString });
  await admin.connect();
  t.teardown(() => admin.end());
  return { connectionString, admin };
}

/** A throwaway cluster whose server a test can stop and start again, as an outage would. */
export function startPostgresCluster(t: Test): ThrowawayPostgres {
  const cluster = startThrowawayPostgres();
  t.teardown(cluster.stop);
  return cluster;
}

export interface ThrowawayPostgres {
  url: string;
  /** Stops the server and removes the cluster. */
  stop: () => void;
  /** Stops the server (pg_ctl stop -m fast), keeping its data; resolves once it is down. */
  stopServer: () => Promise<void>;
  /** Starts the server again; resolves once it accepts connections. */
  startServer: () => Promise<void>;
}

/** A throwaway cluster as `startPostgres` makes, for scripts (the benches): `stop` removes it. */
export function startThrowawayPostgres(): ThrowawayPostgres {
  const bin = postgresBin();
  if (!bin) throw new Error("no PostgreSQL server binaries; .ci/run installs Debian's postgresql package");
  const dir = mkdtempSync(join(tmpdir(), 'pg-'));
  const data = join(dir, 'data');
  const asPostgres = process.getuid?.() === 0; // initdb refuses to run as root
  if (asPostgres) {
    const { uid, gid } = postgresIds();
    chownSync(dir, uid, gid);
  }
  const run = (command: string, args: string[]) => {
    const full = asPostgres
      ? (['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]] as const)
      : ([join(bin, command), args] as const);
    const result = spawnSync(full[0], full[1], { encoding: 'utf8' });
    if (result.status !== 0)
      throw new Error(`${command} failed: ${result.error?.message ?? (result.stderr || result.stdout)}`);
  };
  const port = 20000 + Math.floor(Math.random() * 20000);
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const startArgs = [
    '-D',
    data,
    '-l',
    join(dir, 'log'),
    '-w',
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses='' -c fsync=on`,
    'start',
  ];
  run('pg_ctl', startArgs);
  // Asynchronous, so that servers under test in this process keep running while the cluster stops and starts.
  const runAsync = (command: string, args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const [file, argv] = asPostgres
        ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]]
        : [join(bin, command), args];
      execFile(file, argv, (error, stdout, stderr) =>
        error ? reject(new Error(`${command} failed: ${stderr || stdout}`)) : resolve(),
      );
    });
  const stop = () => {
    spawnSync(
      asPostgres ? 'runuser' : join(bin, 'pg_ctl'),
      asPostgres
        ? ['-u', 'postgres', '--', join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop']
        : ['-D', data, '-m', 'immediate', 'stop'],
    );
    rmSync(dir, { recursive: true, force: true });
  };
  return {
    url: `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(dir)}&port=${port}`,
    stop,
    stopServer: () => runAsync('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    startServer: () => runAsync('pg_ctl', startArgs),
  };
}

function postgresIds(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}
