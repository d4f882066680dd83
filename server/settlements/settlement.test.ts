import t from 'tap';
import {
  parseSort,
  publicSettlement,
  sameSettlement,
  settlementKey,
  settlementFields,
  settlementIndexes,
  type Settlement,
  type SettlementRecord,
} from './settlement.js';

// A batch close is kept once per terminal and batch number: a replay with
// the same six fields is the same close, any difference is a conflict
// (INTERFACE.md §4). These tests hold that decision field by field.

const close: Settlement = {
  batchNumber: 'B-42',
  transactionCount: 12,
  closedAt: '2026-11-21T20:00:00.000Z',
  currencyReference: 'CLP',
  terminal: 'SN-1',
  debitBatch: 'D-1',
};

t.test('a replay with the same six fields is the same close; a change in any one of them is not', async (t) => {
  t.ok(sameSettlement(close, { ...close }));
  const changes: Record<(typeof settlementFields)[number], unknown> = {
    batchNumber: 'B-43',
    transactionCount: 13,
    closedAt: '2026-11-21T20:00:00.001Z',
    currencyReference: 'USD',
    terminal: 'SN-2',
    debitBatch: 'D-2',
  };
  for (const field of settlementFields)
    t.notOk(sameSettlement(close, { ...close, [field]: changes[field] }), `${field} differs`);
  t.notOk(sameSettlement(close, { ...close, transactionCount: '12' as never }), 'the count as text is another value');
  t.ok(sameSettlement(close, { ...close, merchantId: 'm_1' } as Settlement), 'what the server adds is not compared');
});

t.test('what is answered is the six fields, never the merchant or the receipt time kept beside them', async (t) => {
  const record: SettlementRecord = { ...close, merchantId: 'm_1', receivedAt: '2026-11-21T20:00:01.000Z' };
  t.same(publicSettlement(record), close);
  t.same(Object.keys(publicSettlement(record)), [...settlementFields]);
});

t.test('sort: a field sorts ascending, a leading minus descending', async (t) => {
  t.same(parseSort('closedAt'), { field: 'closedAt', direction: 'asc' });
  t.same(parseSort('-closedAt'), { field: 'closedAt', direction: 'desc' });
  t.same(parseSort('-transactionCount'), { field: 'transactionCount', direction: 'desc' });
  // Within a terminal, batch-number order is key order, as "by terminal" (all ties, broken by the key) is.
  t.same(parseSort('batchNumber'), { field: 'terminal', direction: 'asc' });
  t.same(parseSort('-batchNumber'), { field: 'terminal', direction: 'desc' });
});

t.test(
  'every sort is served by a terminal index ordered by its own type; five, one of them the keys, none for the reset',
  async (t) => {
    const byField = new Map(settlementIndexes.map((index) => [index.order!.field, index]));
    t.equal(settlementIndexes.length, 5, 'batch number and terminal share one');
    t.same(
      byField.get('terminal'),
      { equals: ['terminal'], order: { field: 'terminal', type: 'text' }, idStartsWithIt: true },
      "the keys' own order: a key starts with its terminal",
    );
    for (const field of settlementFields) t.ok(byField.has(parseSort(field).field), `${field} is served`);
    t.same(
      byField.get('transactionCount'),
      { equals: ['terminal'], order: { field: 'transactionCount', type: 'number' } },
      'a count sorts as a number: 9 before 10',
    );
    t.same(byField.get('closedAt'), { equals: ['terminal'], order: { field: 'closedAt', type: 'time' } });
    for (const field of ['currencyReference', 'debitBatch'])
      t.same(byField.get(field), { equals: ['terminal'], order: { field, type: 'text' } }, field);
    t.ok(
      settlementIndexes.every((index) => index.equals[0] === 'terminal'),
      'no merchant index: a reset goes through terminals',
    );
  },
);

t.test('the order by batch number is the order of the keys, so one index serves both', async (t) => {
  const numbers = ['B10', 'B9', 'b1', 'B-1', 'B_1', 'B1', 'Z', '0', 'B~', 'LONGEST-BATCH-NUMBER-32-CHARS-XX'];
  const byKey = [...numbers].sort((a, b) => (settlementKey('T1', a) < settlementKey('T1', b) ? -1 : 1));
  const byNumber = [...numbers].sort((a, b) => (a < b ? -1 : 1));
  t.same(byKey, byNumber);
});
