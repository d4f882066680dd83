import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import pg from 'pg';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../server/store/postgres/pg-testing.js';

/**
 * A throwaway PostgreSQL cluster for a bench, with `settings` applied
 * (ALTER SYSTEM, then a restart), and what the bench starts beside it.
 * However the run ends, a failure midway included, no server, generator or
 * database is left behind (their output would hold the caller's pipe open).
 */
export async function benchCluster(
  settings: string[],
): Promise<{ cluster: ThrowawayPostgres; children: ChildProcess[]; dirs: string[] }> {
  const cluster = startThrowawayPostgres();
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  process.on('exit', () => {
    for (const child of children) child.kill('SIGKILL');
    cluster.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  process.on('SIGINT', () => process.exit(130));
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  for (const setting of settings) await admin.query(`ALTER SYSTEM SET ${setting}`);
  await admin.end();
  await cluster.stopServer();
  await cluster.startServer();
  return { cluster, children, dirs };
}
