import t from 'tap';
import pg from 'pg';
import { migrate, PgStore } from './pg-store.js';
import { postgresSkip, startPostgres } from './pg-testing.js';
import { storeContract } from './store-contract.js';
import { runSuite } from '../../contracts/suite/run-suite.js';
import { systemClock } from '../clock.js';
import { defaultConfig } from '../config.js';
import { serveApp } from '../testing/test-server.js';

t.test('the PostgreSQL store keeps the store contract', { skip: postgresSkip() }, async (t) => {
  const connectionString = startPostgres(t);
  storeContract(t, async () => {
    // Each contract test starts from an empty table.
    const pool = new pg.Pool({ connectionString });
    await migrate(pool);
    await pool.query('TRUNCATE records');
    await pool.end();
    return { open: () => PgStore.open({ connectionString }) };
  });
});

t.test('migrations run once, even when several instances start together', { skip: postgresSkip() }, async (t) => {
  const connectionString = startPostgres(t);
  const pools = Array.from({ length: 3 }, () => new pg.Pool({ connectionString }));
  t.teardown(() => Promise.all(pools.map((pool) => pool.end())));
  const ran = await Promise.all(pools.map((pool) => migrate(pool)));
  t.same(ran.flat(), [1], 'version 1 applied by exactly one of them');
  t.same(await migrate(pools[0]!), [], 'and never again');
});

t.test('the whole app on PostgreSQL passes the contract suite', { skip: postgresSkip() }, async (t) => {
  const store = await PgStore.open({ connectionString: startPostgres(t) });
  const { baseUrl, stop } = await serveApp({ store, clock: systemClock, config: { ...defaultConfig, scryptCost: 1024, logLevel: 'silent' } });
  t.teardown(stop);
  const result = await runSuite({ baseUrl, allowMutations: true });
  t.same(result.violations, []);
  t.same(result.problems, []);
  t.same(result.coverage.gaps, []);
});
