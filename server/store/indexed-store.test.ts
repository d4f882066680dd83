import t from 'tap';
import { EmbeddedStore } from './embedded/embedded-store.js';
import { PgStore } from './postgres/pg-store.js';
import { postgresSkip, startPostgres } from './postgres/pg-testing.js';
import { selectSql, tableLayout } from './postgres/pg-tables.js';
import { runQuery } from './query.js';
import type { IndexDeclaration } from './store.js';
import type { Query, Store, StoredRecord } from './store.js';

// The embedded store's lists through declared indexes against the scan
// (runQuery) of the same records: random changes in transactions (inserts,
// updates that move a record between keys, deletes), then random queries of
// every declared shape, also after the store is reopened from its journal
// (replay) and from a snapshot.

let seed = 7;
const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
const owners = ['a', 'b', 'c'];
const kinds = ['x', 'y'];
const times = Array.from({ length: 9 }, (_, i) => `2026-11-1${i}T00:00:00.000Z`);

const declarations: IndexDeclaration[] = [
  { equals: ['owner'], order: { field: 'at', type: 'time' } },
  { equals: ['owner', 'kind'], order: { field: 'at', type: 'time' } },
  { equals: ['owner'], order: { field: 'n', type: 'number' } },
];

function randomRecord(): StoredRecord {
  return {
    owner: pick(owners),
    kind: pick(kinds),
    ...(random() < 0.9 ? { at: pick(times) } : {}),
    ...(random() < 0.85 ? { n: Math.floor(random() * 30) } : {}),
  };
}

function randomQuery(): Query {
  const declaration = pick(declarations);
  const where: Record<string, string> = {};
  for (const field of declaration.equals) where[field] = field === 'owner' ? pick(owners) : pick(kinds);
  const field = declaration.order!.field;
  const values: Array<string | number> = field === 'n' ? [3, 10, 20] : times;
  return {
    where,
    orderBy: { field, direction: random() < 0.5 ? 'asc' : 'desc' },
    ...(random() < 0.4
      ? {
          range: {
            field,
            ...(random() < 0.7 ? { min: pick(values) } : {}),
            ...(random() < 0.7 ? { max: pick(values) } : {}),
          },
        }
      : {}),
    ...(random() < 0.6 ? { limit: 1 + Math.floor(random() * 6) } : {}),
    ...(random() < 0.4 ? { offset: Math.floor(random() * 5) } : {}),
  };
}

/** 25 random puts and deletes in one transaction, kept in `mirror` too: some move a record between index keys. */
async function randomChanges(store: Store, mirror: Map<string, StoredRecord>): Promise<void> {
  await store.transact((tx) => {
    for (let i = 0; i < 25; i += 1) {
      const id = `r${Math.floor(random() * 120)}`;
      if (random() < 0.75) {
        const record = randomRecord();
        tx.put('items', id, record);
        mirror.set(id, record);
      } else {
        tx.delete('items', id);
        mirror.delete(id);
      }
    }
  });
}

t.test('indexed lists answer what the scan answers, through changes, replay and snapshot load', async (t) => {
  const dir = t.testdir();
  const open = async () => {
    const store = await EmbeddedStore.open({ dir, unindexedQueries: 'throw' });
    store.declareIndexes({ items: declarations });
    return store;
  };
  let store = await open();
  const mirror = new Map<string, StoredRecord>();
  let compared = 0;
  const check = async (when: string) => {
    for (let q = 0; q < 60; q += 1) {
      const query = randomQuery();
      const got = await store.list('items', query);
      const expected = runQuery([...mirror.entries()], query);
      compared += 1;
      if (JSON.stringify(got) !== JSON.stringify(expected))
        return t.fail(
          `${when}: ${JSON.stringify(query)} answered ${JSON.stringify(got)}, the scan ${JSON.stringify(expected)}`,
        );
    }
  };
  for (let round = 0; round < 12; round += 1) {
    await randomChanges(store, mirror);
    await check(`round ${round}`);
    if (round === 4) {
      await store.close();
      store = await open(); // from the journal
      await check('after replay');
    }
    if (round === 8) {
      await store.snapshot();
      await store.close();
      store = await open(); // from the snapshot
      t.ok(store.openStats.snapshotSeq > 0);
      await check('after snapshot load');
    }
  }
  await store.close();
  t.ok(compared >= 700, `${compared} queries compared`);
});

t.test(
  'a list of a declared collection that no declared index serves fails under unindexedQueries: throw',
  async (t) => {
    const store = await EmbeddedStore.open({ dir: t.testdir(), unindexedQueries: 'throw' });
    t.teardown(() => store.close());
    store.declareIndexes({ items: declarations });
    await t.rejects(
      store.list('items', { where: { kind: 'x' }, orderBy: { field: 'at', direction: 'asc' } }),
      /no declared index of items serves/,
    );
    t.same(await store.list('others', { where: { kind: 'x' } }), [], 'an undeclared collection is scanned');
  },
);

/** PostgreSQL's plan for `statement` on `table`, analysed, with sequential scans ruled out. */
async function planOf(store: PgStore, table: string, statement: { text: string; values: unknown[] }): Promise<string> {
  type Client = {
    query: (sql: string, values?: unknown[]) => Promise<{ rows: Array<Record<string, string>> }>;
    release: () => void;
  };
  const client = await (store as unknown as { pool: { connect: () => Promise<Client> } }).pool.connect();
  try {
    await client.query(`ANALYZE ${table}`);
    await client.query('SET enable_seqscan = off');
    const { rows } = await client.query(`EXPLAIN ${statement.text}`, statement.values);
    await client.query('RESET enable_seqscan');
    return rows.map((row) => Object.values(row)[0]).join('\n');
  } finally {
    client.release();
  }
}

/** JSON with keys in one order: jsonb does not keep a document's key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

t.test(
  'on PostgreSQL, lists of the declared shapes run in SQL and answer what the scan answers, through changes',
  { skip: postgresSkip() },
  async (t) => {
    const store = await PgStore.open({ connectionString: startPostgres(t) });
    t.teardown(() => store.close());
    store.declareIndexes({ items: declarations });
    await store.indexesReady();
    const mirror = new Map<string, StoredRecord>();
    let compared = 0;
    const failures: string[] = [];
    for (let round = 0; round < 10; round += 1) {
      await randomChanges(store, mirror);
      for (let q = 0; q < 40; q += 1) {
        const query = randomQuery();
        const got = await (store as Store).list('items', query);
        const expected = runQuery([...mirror.entries()], query);
        compared += 1;
        if (canonical(got) !== canonical(expected))
          failures.push(
            `${JSON.stringify(query)} answered ${JSON.stringify(got)}, the scan ${JSON.stringify(expected)}`,
          );
      }
    }
    t.same(failures.slice(0, 3), [], `${compared} queries compared, ${failures.length} differed`);
    // The ordered page comes from the index, with no sort of the collection.
    const served = selectSql(tableLayout('items', declarations), {
      where: { owner: 'a' },
      orderBy: { field: 'at', direction: 'desc' },
      limit: 1,
    });
    t.ok(served.complete, 'SQL answers the whole list');
    // A few hundred rows: a scan would be as cheap, so ask what the index gives.
    const plan = await planOf(store, 'items', served);
    t.match(plan, /Index Scan Backward using items_ix_/, plan);
    t.notMatch(plan, /Sort/, 'no sort: the index gives the order');
  },
);

t.test(
  'on PostgreSQL, a declaration whose ids start with its field is served by the primary key, with no index written',
  { skip: postgresSkip() },
  async (t) => {
    const store = await PgStore.open({ connectionString: startPostgres(t) });
    t.teardown(() => store.close());
    const byOwner: IndexDeclaration[] = [
      { equals: ['owner'], order: { field: 'owner', type: 'text' }, idStartsWithIt: true },
      { equals: ['owner'], order: { field: 'n', type: 'number' } },
    ];
    store.declareIndexes({ batches: byOwner });
    await store.indexesReady();
    // Owners that share a prefix, and one with a character past "/", around the owner asked for, which has
    // many: the planner then walks the key rather than sort them all.
    const ids = ['a', 'a0', 'a.b', 'ab', 'b'].flatMap((owner) =>
      Array.from({ length: owner === 'a' ? 3000 : 40 }, (_, n) => `${owner}/${String(n).padStart(4, '0')}`),
    );
    await store.transact((tx) => {
      ids.forEach((id, n) => tx.put('batches', id, { owner: id.slice(0, id.lastIndexOf('/')), n: n % 7 }));
    });
    for (const direction of ['asc', 'desc'] as const) {
      const query: Query = { where: { owner: 'a' }, orderBy: { field: 'owner', direction }, limit: 5, offset: 3 };
      const expected = runQuery(
        ids.map((id, n) => [id, { owner: id.slice(0, id.lastIndexOf('/')), n: n % 7 }]),
        query,
      );
      t.same(await store.list('batches', query), expected, `${direction}: what the scan answers`);
    }
    t.equal((await store.list('batches', { where: { owner: 'a0' } })).length, 40, 'no order asked: the same range');
    const layout = tableLayout('batches', byOwner);
    t.equal(layout.indexes.length, 1, 'one index: the other order');
    const served = selectSql(layout, {
      where: { owner: 'a' },
      orderBy: { field: 'owner', direction: 'desc' },
      limit: 5,
    });
    const plan = await planOf(store, 'batches', served);
    t.match(plan, /Index Scan Backward using batches_pkey/, plan);
    t.notMatch(plan, /Sort/, 'no sort: the key gives the order');
  },
);
