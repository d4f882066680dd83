import t from 'tap';
import type { IndexDeclaration } from '../store.js';
import {
  alterTableSql,
  countSql,
  createTableSql,
  dropLeftoversSql,
  fieldExpression,
  fieldSql,
  ident,
  isCollectionTable,
  leftoverColumns,
  literal,
  selectSql,
  tableLayout,
  tableName,
} from './pg-tables.js';

// The PostgreSQL layout on its own (pure): table names, typed fields and
// their indexes from declarations, and the SQL of lists. What the statements
// answer is checked against the in-memory query on a real database in
// indexed-store.test.ts.

t.test(
  'a collection gets its own name as its table when that is a plain identifier, else a name from its hash',
  async (t) => {
    t.equal(tableName('settlements'), 'settlements');
    t.equal(tableName('split_agreements'), 'split_agreements');
    for (const odd of ['Orders', 'with space', 'records', 'leases', 'a'.repeat(41), 'ñ']) {
      t.match(tableName(odd), /^c_[0-9a-f]{24}$/, `${odd} is hashed`);
    }
    t.not(tableName('Orders'), tableName('orders '), 'different names, different tables');
  },
);

t.test('declarations make typed fields and one index per distinct shape', async (t) => {
  const layout = tableLayout('settlements', [
    { equals: ['terminal'], order: { field: 'closedAt', type: 'time' } },
    { equals: ['terminal'], order: { field: 'transactionCount', type: 'number' } },
    { equals: ['terminal'], order: { field: 'terminal', type: 'text' } },
    { equals: ['terminal'] },
    { equals: ['merchantId'] },
  ]);
  t.same(
    [...layout.fields.values()].map((indexed) => [indexed.field, indexed.type]),
    [
      ['closedAt', 'text'],
      ['transactionCount', 'number'],
      ['terminal', 'text'],
      ['merchantId', 'text'],
    ],
  );
  // (terminal) ordered by terminal is (terminal, id), the same index as (terminal) alone.
  t.equal(layout.indexes.length, 4, 'two declarations that come to one index share it');
  const terminal = fieldSql({ field: 'terminal', type: 'text' });
  t.ok(layout.indexes.some((index) => index.sql.endsWith(`ON "settlements" (${terminal}, id)`)));
  t.notOk(
    layout.indexes.some((index) => index.sql.includes(`${terminal}, ${terminal}`)),
    'no field twice in an index',
  );
  t.ok(
    layout.indexes.some((index) =>
      index.sql.endsWith(
        `(${terminal}, ${fieldSql({ field: 'transactionCount', type: 'number' })} ASC NULLS FIRST, id)`,
      ),
    ),
    'an index on the expressions, text in the C collation',
  );
  t.ok(layout.indexes.every((index) => index.sql.startsWith('CREATE INDEX CONCURRENTLY IF NOT EXISTS')));
  t.throws(
    () =>
      tableLayout('x', [
        { equals: [], order: { field: 'at', type: 'number' } },
        { equals: [], order: { field: 'at', type: 'text' } },
      ]),
    /declared both as number and as text/,
  );
});

t.test('the table is created with id, data and the claim columns; an older one keeps its leftovers', async (t) => {
  const layout = tableLayout('items', [
    { equals: ['owner'], order: { field: 'at', type: 'number' } },
    { equals: ['id'] },
  ]);
  t.equal(
    createTableSql(layout),
    'CREATE TABLE IF NOT EXISTS "items" (id text COLLATE "C" PRIMARY KEY, data jsonb NOT NULL, claim_id text COLLATE "C", claim_live_until double precision)',
    'no column per field: the indexes are on expressions',
  );
  const ours = new Map([
    ['id', 'text'],
    ['data', 'jsonb'],
    ['claim_id', 'text'],
    ['claim_live_until', 'double precision'],
  ]);
  t.same(alterTableSql(layout, ours), [], 'nothing to do');
  // A table of an older version: generated columns per field, and (older still) no claim columns.
  const older = new Map([
    ['id', 'text'],
    ['data', 'jsonb'],
    ['at', 'double precision'],
    ['owner', 'text'],
    ['field_id', 'text'],
  ]);
  t.same(
    alterTableSql(layout, older),
    [
      'ALTER TABLE "items" ADD COLUMN IF NOT EXISTS claim_id text COLLATE "C"',
      'ALTER TABLE "items" ADD COLUMN IF NOT EXISTS claim_live_until double precision',
    ],
    'the claim columns are added; the older columns stay',
  );
  t.same(leftoverColumns(older), ['at', 'owner', 'field_id']);
  t.same(leftoverColumns(ours), [], 'a table of this version has none');
  t.equal(
    dropLeftoversSql('items', leftoverColumns(older)),
    'ALTER TABLE "items" DROP COLUMN IF EXISTS "at", DROP COLUMN IF EXISTS "owner", DROP COLUMN IF EXISTS "field_id"',
    'dropped in one statement',
  );
  t.equal(dropLeftoversSql('items', []), undefined, 'no statement for none');
});

const owner = `(CASE WHEN jsonb_typeof(data->'owner') = 'string' THEN data->>'owner' END) COLLATE "C"`;
const at = `(CASE WHEN jsonb_typeof(data->'at') = 'number' THEN (data->>'at')::double precision END)`;

t.test('a list is one statement when the indexed fields answer it all, and narrows otherwise', async (t) => {
  const layout = tableLayout('items', [{ equals: ['owner'], order: { field: 'at', type: 'number' } }]);
  const page = selectSql(layout, {
    where: { owner: 'a', kind: 'x' },
    orderBy: { field: 'at', direction: 'desc' },
    limit: 10,
    offset: 20,
  });
  t.ok(page.complete);
  t.equal(
    page.text,
    `SELECT id, data FROM "items" WHERE ${owner} = $1 AND data @> $2::jsonb ORDER BY ${at} DESC NULLS LAST, id DESC LIMIT $3 OFFSET $4`,
  );
  t.same(page.values, ['a', '{"kind":"x"}', 10, 20]);
  const range = selectSql(layout, { range: { field: 'at', min: 5 }, orderBy: { field: 'at', direction: 'asc' } });
  t.equal(
    range.text,
    `SELECT id, data FROM "items" WHERE ${at} IS NOT NULL AND ${at} >= $1::double precision ORDER BY ${at} ASC NULLS FIRST, id ASC`,
  );
  const otherType = selectSql(layout, {
    where: { owner: 7 },
    range: { field: 'at', max: 'z' },
    orderBy: { field: 'at', direction: 'asc' },
    limit: 1,
  });
  t.notOk(otherType.complete, 'bounds of another type than the field is indexed as: finished in memory');
  t.equal(
    otherType.text,
    'SELECT id, data FROM "items" WHERE data @> $1::jsonb',
    'a value of another type than the index holds is matched in the document',
  );
  const unordered = selectSql(layout, { orderBy: { field: 'name', direction: 'asc' }, limit: 1 });
  t.notOk(unordered.complete, 'an order on a field not indexed: finished in memory');
  t.notMatch(unordered.text, /LIMIT/, 'and not cut short in SQL');
  t.match(selectSql(layout, {}, { lock: true }).text, / FOR UPDATE$/);
  t.match(
    selectSql(layout, { where: { owner: 'a' } }, { withIds: false }).text,
    /^SELECT data FROM/,
    'answered whole: the records alone',
  );
  t.match(
    selectSql(layout, { orderBy: { field: 'name', direction: 'asc' } }, { withIds: false }).text,
    /^SELECT id, data FROM/,
    'finished in memory: with their ids',
  );
  t.same(countSql(layout, { owner: 'a' }), {
    text: `SELECT count(*) AS n FROM "items" WHERE ${owner} = $1`,
    values: ['a'],
  });
});

t.test(
  "names and text in SQL are quoted, and the store's own tables and columns are never a collection's",
  async (t) => {
    for (const own of ['records', 'leases', 'bus_spill', 'schema_migrations'])
      t.match(tableName(own), /^c_/, `${own} is the store's`);
    t.equal(ident('a"b'), '"a""b"');
    t.equal(literal("it's"), "'it''s'");
    const layout = tableLayout('items', [{ equals: ['data', 'id'] }]);
    t.match(
      layout.indexes[0]!.sql,
      `ON "items" ((CASE WHEN jsonb_typeof(data->'data') = 'string' THEN data->>'data' END) COLLATE "C", (CASE WHEN jsonb_typeof(data->'id') = 'string'`,
      "fields named like the table's own columns are read from the record",
    );
    t.same(
      tableLayout('plain'),
      { collection: 'plain', table: 'plain', fields: new Map(), indexes: [] },
      'no declarations: id and data alone',
    );
  },
);

t.test(
  'a field declared twice with one type is one field, and an ordered number stays a number when also an equality',
  async (t) => {
    const layout = tableLayout('items', [
      { equals: ['owner'], order: { field: 'at', type: 'number' } },
      { equals: ['owner', 'at'] },
      { equals: [], order: { field: 'at', type: 'number' } },
    ]);
    t.same(
      [...layout.fields.values()].map((indexed) => [indexed.field, indexed.type]),
      [
        ['at', 'number'],
        ['owner', 'text'],
      ],
    );
    t.match(
      layout.indexes[0]!.name,
      /^items_ix_[0-9a-f]{12}$/,
      'index names: the table and 12 hex digits of the definition',
    );
  },
);

t.test("a field's expression reads it only when the field has the type it is indexed as", async (t) => {
  t.equal(
    fieldExpression('at', 'number'),
    "(CASE WHEN jsonb_typeof(data->'at') = 'number' THEN (data->>'at')::double precision END)",
  );
  t.equal(fieldExpression('who', 'text'), "(CASE WHEN jsonb_typeof(data->'who') = 'string' THEN data->>'who' END)");
  t.equal(
    fieldExpression("o'k", 'text', '"t"'),
    "(CASE WHEN jsonb_typeof(\"t\".data->'o''k') = 'string' THEN \"t\".data->>'o''k' END)",
  );
  t.equal(fieldSql({ field: 'who', type: 'text' }), `${fieldExpression('who', 'text')} COLLATE "C"`, 'text in C');
  t.equal(fieldSql({ field: 'at', type: 'number' }), fieldExpression('at', 'number'), 'a number as it is');
});

t.test(
  'values go to SQL as the indexes hold them: text escaped as keys, numbers cast, and no clause without a condition',
  async (t) => {
    const layout = tableLayout('items', [
      { equals: ['owner'], order: { field: 'name', type: 'text' } },
      { equals: [], order: { field: 'at', type: 'number' } },
    ]);
    t.same(
      selectSql(layout, { where: { owner: 'a\u0000b' } }).values,
      ['a\u0001' + '0b'],
      'a text value escaped as pg-text.ts escapes keys',
    );
    const text = selectSql(layout, { range: { field: 'name', min: 'a\u0000', max: 'z' } });
    const name = `(CASE WHEN jsonb_typeof(data->'name') = 'string' THEN data->>'name' END) COLLATE "C"`;
    t.equal(text.text, `SELECT id, data FROM "items" WHERE ${name} IS NOT NULL AND ${name} >= $1 AND ${name} <= $2`);
    t.same(text.values, ['a\u0001' + '0', 'z']);
    const numbers = selectSql(layout, { range: { field: 'at', max: 9 } });
    t.equal(numbers.text, `SELECT id, data FROM "items" WHERE ${at} IS NOT NULL AND ${at} <= $1::double precision`);
    t.same(numbers.values, [9]);
    t.equal(
      selectSql(layout, { limit: 5 }).text,
      'SELECT id, data FROM "items" LIMIT $1',
      'no order asked: none given, no WHERE',
    );
    t.same(countSql(layout, undefined), { text: 'SELECT count(*) AS n FROM "items"', values: [] });
    t.same(countSql(layout, { owner: 'a', kind: 2 }), {
      text: `SELECT count(*) AS n FROM "items" WHERE ${owner} = $1 AND data @> $2::jsonb`,
      values: ['a', '{"kind":2}'],
    });
  },
);

t.test('a declaration whose ids start with its field is served by a range of the primary key', async (t) => {
  const byOwner: IndexDeclaration[] = [
    { equals: ['owner'], order: { field: 'owner', type: 'text' }, idStartsWithIt: true },
    { equals: ['owner'], order: { field: 'n', type: 'number' } },
  ];
  const layout = tableLayout('batches', byOwner);
  t.equal(layout.idPrefixField, 'owner');
  t.equal(layout.indexes.length, 1, 'no index of its own: the other declaration has one');
  t.notOk('idPrefixField' in tableLayout('batches', [byOwner[1]!]), 'none without such a declaration');
  const owner = fieldSql({ field: 'owner', type: 'text' });
  for (const orderBy of [undefined, { field: 'owner', direction: 'desc' as const }]) {
    const page = selectSql(layout, { where: { owner: 'a' }, ...(orderBy ? { orderBy } : {}) });
    t.match(page.text, `WHERE ${owner} = $1 AND id >= $2 AND id < $3`, 'the ids from "a/" up to "a0"');
    t.same(page.values, ['a', 'a/', 'a0']);
  }
  t.same(
    selectSql(layout, { where: { owner: 'a\u0000' } }).values.slice(1),
    ['a\u00010/', 'a\u000100'],
    'escaped as keys',
  );
  t.notMatch(
    selectSql(layout, { where: { owner: 'a' }, orderBy: { field: 'n', direction: 'asc' } }).text,
    /id >=/,
    'ordered by another field: its own index, no range of the key',
  );
  t.notMatch(selectSql(layout, { where: { owner: 7 } }).text, /id >=/, 'a value that is not text: no range');
  t.notMatch(selectSql(layout, {}).text, /WHERE/, 'no owner asked: no range');
  const wrong: Array<[IndexDeclaration, string]> = [
    [{ equals: [], idStartsWithIt: true }, 'no field'],
    [{ equals: ['owner', 'kind'], idStartsWithIt: true }, 'two fields'],
    [{ equals: ['owner'], order: { field: 'n', type: 'number' }, idStartsWithIt: true }, 'another order'],
  ];
  for (const [declaration, why] of wrong)
    t.throws(
      () => tableLayout('batches', [declaration]),
      /batches: an id starts with one field, ordered by the id alone/,
      why,
    );
});

t.test('a range is answered in SQL only when every bound fits the field', async (t) => {
  const layout = tableLayout('items', [{ equals: [], order: { field: 'at', type: 'number' } }]);
  t.notOk(selectSql(layout, { range: { field: 'at', min: 1, max: 'z' } }).complete, 'one bound of another type');
  t.ok(selectSql(layout, { range: { field: 'at', min: 1, max: 2 } }).complete);
  t.same(selectSql(layout, { where: { at: 5 } }).values, [5], 'a number compared as a number');
});

t.test("the store's own tables are not a collection's", async (t) => {
  for (const own of ['records', 'leases', 'bus_spill', 'schema_migrations']) t.notOk(isCollectionTable(own), own);
  t.ok(isCollectionTable('settlements'));
});
