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
// (addendum §4). These tests hold that decision field by field.

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
  t.same(parseSort('batchNumber'), { field: 'batchNumber', direction: 'asc' });
});

t.test(
  'every sortable field has a terminal index ordered by its own type, and a merchant index serves the reset',
  async (t) => {
    const byField = new Map(
      settlementIndexes.filter((index) => index.order).map((index) => [index.order!.field, index]),
    );
    t.equal(byField.size, settlementFields.length);
    t.same(
      byField.get('transactionCount'),
      { equals: ['terminal'], order: { field: 'transactionCount', type: 'number' } },
      'a count sorts as a number: 9 before 10',
    );
    t.same(byField.get('closedAt'), { equals: ['terminal'], order: { field: 'closedAt', type: 'time' } });
    for (const field of ['batchNumber', 'currencyReference', 'terminal', 'debitBatch'])
      t.same(byField.get(field), { equals: ['terminal'], order: { field, type: 'text' } }, field);
    t.ok(
      settlementIndexes.some((index) => !index.order && index.equals.length === 1 && index.equals[0] === 'merchantId'),
    );
  },
);

t.test(
  'a close is kept under its terminal and batch number: the same batch number on another terminal is another close',
  async (t) => {
    t.equal(settlementKey('SN-1', 'B-42'), settlementKey('SN-1', 'B-42'));
    t.not(settlementKey('SN-1', 'B-42'), settlementKey('SN-2', 'B-42'));
    t.not(settlementKey('SN-1', 'B-42'), settlementKey('SN-1', 'B-43'));
    t.equal(settlementKey('SN-1', 'B-42'), 'SN-1/B-42');
  },
);
