import t, { type Test } from 'tap';
import pg from 'pg';
import { migrate, PgStore } from './pg-store.js';
import { postgresSkip, startPostgres } from './pg-testing.js';
import { storeContract } from '../testing/store-contract.js';
import { describeFailure } from '../../../contracts/suite/expectations.js';
import { runSuite } from '../../../contracts/suite/run-suite.js';
import { systemClock } from '../../clock.js';
import { defaultConfig } from '../../config.js';
import { serveApp } from '../../testing/test-server.js';

t.test('the PostgreSQL store keeps the store contract', { skip: postgresSkip() }, async (t) => {
  const connectionString = startPostgres(t);
  storeContract(t, async () => {
    // Each contract test starts from an empty database.
    const pool = new pg.Pool({ connectionString });
    await pool.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
    await pool.end();
    return { open: () => PgStore.open({ connectionString }) };
  });
});

t.test('migrations run once, even when several instances start together', { skip: postgresSkip() }, async (t) => {
  const connectionString = startPostgres(t);
  const pools = Array.from({ length: 3 }, () => new pg.Pool({ connectionString }));
  t.teardown(() => Promise.all(pools.map((pool) => pool.end())));
  const ran = await Promise.all(pools.map((pool) => migrate(pool)));
  t.same(ran.flat().sort(), [1, 2, 3, 4], 'each version applied by exactly one of them');
  t.same(await migrate(pools[0]!), [], 'and never again');
});

t.test('the whole app on PostgreSQL passes the contract suite', { skip: postgresSkip() }, async (t) => {
  const store = await PgStore.open({ connectionString: startPostgres(t) });
  const { baseUrl, stop } = await serveApp({
    store,
    sharing: 'instances',
    clock: systemClock,
    config: { ...defaultConfig, scryptCost: 1024, logLevel: 'silent' },
  });
  t.teardown(stop);
  const result = await runSuite({ baseUrl, allowMutations: true });
  t.same(result.violations, []);
  t.same(result.failures.map(describeFailure), [], 'every behavioural check held');
  t.same(result.coverage.gaps, []);
});

/** Two stores on one throwaway database, as two instances would open them. */
async function twoStores(t: Test): Promise<readonly [PgStore, PgStore]> {
  const connectionString = startPostgres(t);
  const stores = [await PgStore.open({ connectionString }), await PgStore.open({ connectionString })] as const;
  t.teardown(() => Promise.all(stores.map((store) => store.close())));
  return stores;
}

t.test(
  'instances sharing the database never hold a lease on the same record at once',
  { skip: postgresSkip() },
  async (t) => {
    const [a, b] = await twoStores(t);
    const ids = Array.from({ length: 200 }, (_, i) => `d${i}`);
    await a.transact((tx) => {
      for (const id of ids) tx.put('deliveries', id, { id });
    });

    // Both ask for all of them at the same moment: each record goes to exactly one.
    const [forA, forB] = await Promise.all([a.lease('deliveries', ids, 60_000), b.lease('deliveries', ids, 60_000)]);
    t.same(
      forA.filter((id) => forB.includes(id)),
      [],
      'no record leased to both',
    );
    t.same([...forA, ...forB].sort(), [...ids].sort(), 'and none left out');

    const heldByA = forA[0] ?? forB[0]!;
    const holder = forA.includes(heldByA) ? a : b;
    const other = holder === a ? b : a;
    t.same(await other.lease('deliveries', [heldByA], 60_000), [], 'a live lease of another instance is refused');
    await holder.release('deliveries', [heldByA]);
    t.same(await other.lease('deliveries', [heldByA], 60_000), [heldByA], 'given back, it can be taken');
    await other.lease('deliveries', [heldByA], 0); // renewed with no time left: expired at once
    t.same(await holder.lease('deliveries', [heldByA], 60_000), [heldByA], 'an expired lease is taken over');
  },
);

t.test(
  'a bus message published by one instance reaches another, spilled through a table when large',
  { skip: postgresSkip() },
  async (t) => {
    const [a, b] = await twoStores(t);
    const received: unknown[] = [];
    let arrivedBoth = () => {};
    const two = new Promise<void>((resolve) => (arrivedBoth = resolve));
    await b.bus.subscribe('instances_test', (message) => received.push(message) === 2 && arrivedBoth());
    await a.bus.publish('instances_test', { small: true });
    await a.bus.publish('instances_test', { large: 'y'.repeat(20_000) });
    await two;
    t.same(received, [{ small: true }, { large: 'y'.repeat(20_000) }]);
  },
);
