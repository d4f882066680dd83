import t from 'tap';
import { compareValues, inRange, matchesWhere, runQuery } from './query.js';

// How a list is answered from records, as a caller of the store sees it:
// which records match, in which order, which page. The indexes are checked
// against this elsewhere, so this is checked against plain expectations.

t.test(
  'order across types: missing (undefined or null) first, then numbers, then text, then anything else',
  async (t) => {
    // (Array.prototype.sort puts undefined last whatever the comparator: it is compared below instead.)
    const values = [true, 'b', 10, null, 'zz', 'a', 9, -1, 'B'];
    t.same(
      [...values].sort(compareValues),
      [null, -1, 9, 10, 'B', 'a', 'b', 'zz', true],
      'booleans after all text, even text sorting after "true"',
    );
    t.ok(
      compareValues(undefined, -1) < 0 && compareValues(undefined, '') < 0 && compareValues(undefined, false) < 0,
      'undefined before anything present',
    );
    t.equal(compareValues(9, 10) < 0, true, 'numbers by value, not as text');
    t.equal(compareValues('10', '9') < 0, true, 'text by its characters');
    t.equal(compareValues(null, null), 0, 'both missing');
    t.equal(compareValues(null, undefined), 0, 'null and undefined are both missing');
    t.equal(compareValues('x', 'x'), 0);
    t.equal(compareValues(false, true) < 0, true);
  },
);

t.test('where: every field given must be equal; none given matches all', async (t) => {
  const record = { merchantId: 'm1', status: 'PAID', amount: 10 };
  t.ok(matchesWhere(record, undefined));
  t.ok(matchesWhere(record, {}));
  t.ok(matchesWhere(record, { merchantId: 'm1', status: 'PAID' }));
  t.notOk(matchesWhere(record, { merchantId: 'm1', status: 'PENDING' }));
  t.notOk(matchesWhere(record, { amount: '10' }), 'equal means the same type too');
});

t.test('range: inclusive bounds; a record without the field is in no range', async (t) => {
  const at = (value: unknown) => ({ value });
  t.ok(inRange(at(5), undefined));
  t.ok(inRange(at(5), { field: 'value', min: 5, max: 5 }));
  t.notOk(inRange(at(4), { field: 'value', min: 5 }));
  t.notOk(inRange(at(6), { field: 'value', max: 5 }));
  t.ok(inRange(at(-1_000), { field: 'value', max: 5 }), 'no min: anything below the max');
  t.ok(inRange(at(1_000), { field: 'value', min: 5 }), 'no max: anything above the min');
  t.ok(inRange(at(''), { field: 'value' }), 'no bounds: any value present');
  t.notOk(inRange(at(null), { field: 'value' }));
  t.notOk(inRange({}, { field: 'value', max: 5 }));
  t.notOk(inRange(at(null), { field: 'value', max: 5 }), 'null is missing, not below the max');
});

t.test('a query filters, orders (ties by id), and pages', async (t) => {
  const records: Array<[string, { n: number | null; kind: string }]> = [
    ['d', { n: 2, kind: 'x' }],
    ['a', { n: 1, kind: 'x' }],
    ['c', { n: 2, kind: 'x' }],
    ['b', { n: 3, kind: 'y' }],
    ['e', { n: null, kind: 'x' }],
  ];
  const ids = (query: Parameters<typeof runQuery>[1]) =>
    runQuery(records, query).map((record) => records.find(([, value]) => value === record)![0]);
  t.same(ids({}), ['d', 'a', 'c', 'b', 'e'], 'no order: as stored');
  t.same(
    ids({ orderBy: { field: 'n', direction: 'asc' } }),
    ['e', 'a', 'c', 'd', 'b'],
    'ascending, a tie by id ascending',
  );
  t.same(
    ids({ orderBy: { field: 'n', direction: 'desc' } }),
    ['b', 'd', 'c', 'a', 'e'],
    'descending, a tie by id descending',
  );
  t.same(ids({ where: { kind: 'x' }, range: { field: 'n', min: 2 }, orderBy: { field: 'n', direction: 'asc' } }), [
    'c',
    'd',
  ]);
  t.same(ids({ orderBy: { field: 'n', direction: 'asc' }, offset: 1, limit: 2 }), ['a', 'c']);
  t.same(ids({ orderBy: { field: 'n', direction: 'asc' }, limit: 0 }), []);
  t.same(ids({ orderBy: { field: 'n', direction: 'asc' }, offset: 4 }), ['b'], 'an offset without a limit: the rest');
});
