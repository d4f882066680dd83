import type { Check, CheckContext } from './check.js';
import { provisionTerminal, registerAccount, unique } from './fixtures.js';
import type { JsonAnswer } from '../../json-answer.js';
import type { SuiteResponse } from '../suite-client.js';

// Settlements (INTERFACE.md §4).

const fields = ['batchNumber', 'transactionCount', 'closedAt', 'currencyReference', 'terminal', 'debitBatch'] as const;
type Settlement = Record<(typeof fields)[number], string | number>;

async function replayAndConflict(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const terminal = await provisionTerminal(http, account);
  const path = `/api/v1/pos-terminals/${encodeURIComponent(terminal.serial)}/settlements`;
  const settlement: Settlement = {
    batchNumber: `B${unique()}`.slice(0, 32),
    transactionCount: 7,
    closedAt: new Date(Date.now() - 3_600_000).toISOString(),
    currencyReference: 'USD',
    terminal: terminal.serial,
    debitBatch: 'D7',
  };
  const first = await terminal.send('POST', path, settlement);
  if (expect.status(first, 200)) expect.equal(first, '/data', settlement, 'the registered settlement, its six fields');
  const replay = await terminal.send('POST', path, settlement);
  if (expect.status(replay, 200))
    expect.equal(replay, '/data', settlement, 'the same six fields again: the stored settlement');
  expect.status(await terminal.send('POST', path, { ...settlement, transactionCount: 8 }), 409, 'SETTLEMENT_CONFLICT');
  expect.status(
    await terminal.send('POST', path, {
      ...settlement,
      batchNumber: `X${unique()}`.slice(0, 32),
      terminal: 'ANOTHER-TERMINAL',
    }),
    400,
    'VALIDATION_FAILED',
  );
  const { transactionCount: _dropped, ...missing } = settlement;
  expect.status(await terminal.send('POST', path, missing), 400, 'VALIDATION_FAILED');
  expect.status(
    await terminal.send('POST', path, { ...settlement, batchNumber: `U${unique()}`.slice(0, 32), surplus: 1 }),
    400,
    'VALIDATION_FAILED',
  );
  const stored = await http(
    'GET',
    `${account.merchant}/pos-terminals/${encodeURIComponent(terminal.serial)}/settlements`,
    { token: account.token },
  );
  if (expect.status(stored, 200))
    expect.that(
      (stored.body.data as Settlement[]).filter((s) => s.batchNumber === settlement.batchNumber).length === 1,
      stored,
      '/data',
      'the batch recorded once, as first sent',
      stored.body.data,
    );
}

/** The settlements listed in their terminal's order (`?q`). */
type Lister = (q: string) => Promise<SuiteResponse>;

const batches = (body: JsonAnswer) => ((body?.data ?? []) as Settlement[]).map((s) => s.batchNumber);

/** The batch numbers of `settlements` in the order a sort by `field` gives. */
const ordered = (settlements: Settlement[], field: (typeof fields)[number], descending: boolean) =>
  [...settlements]
    .sort((a, b) => (a[field] < b[field] ? -1 : a[field] > b[field] ? 1 : 0) * (descending ? -1 : 1))
    .map((s) => s.batchNumber);

async function query(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const terminal = await provisionTerminal(http, account);
  const base = Date.now() - 86_400_000;
  const at = (offset: number) => new Date(base + offset).toISOString();
  const tag = unique().slice(-6);
  // Distinct in every field but terminal, in different orders field by field.
  const settlements: Settlement[] = [
    {
      batchNumber: `B1-${tag}`,
      transactionCount: 5,
      closedAt: at(2000),
      currencyReference: 'USD',
      terminal: terminal.serial,
      debitBatch: 'D3',
    },
    {
      batchNumber: `B2-${tag}`,
      transactionCount: 9,
      closedAt: at(0),
      currencyReference: 'EUR',
      terminal: terminal.serial,
      debitBatch: 'D1',
    },
    {
      batchNumber: `B3-${tag}`,
      transactionCount: 1,
      closedAt: at(1000),
      currencyReference: 'ARS',
      terminal: terminal.serial,
      debitBatch: 'D2',
    },
  ];
  for (const s of settlements)
    expect.status(
      await terminal.send('POST', `/api/v1/pos-terminals/${encodeURIComponent(terminal.serial)}/settlements`, s),
      200,
    );
  const list = (q: string) =>
    http('GET', `${account.merchant}/pos-terminals/${encodeURIComponent(terminal.serial)}/settlements${q}`, {
      token: account.token,
    });
  await sortedEveryWay(ctx, list, settlements);
  await pagesAndRanges(ctx, list, settlements, tag, at);
  for (const q of ['?sort=amount', '?sort=--closedAt', '?size=0', '?size=101', '?page=0'])
    expect.status(await list(q), 400, 'VALIDATION_FAILED');
  const stranger = await registerAccount(http);
  const theirs = await provisionTerminal(http, stranger);
  expect.status(
    await http('GET', `${account.merchant}/pos-terminals/${encodeURIComponent(theirs.serial)}/settlements`, {
      token: account.token,
    }),
    404,
    'NOT_FOUND',
  );
}

/** Each field sorts both ways; without a sort, the newest closedAt comes first. */
async function sortedEveryWay(ctx: CheckContext, list: Lister, settlements: Settlement[]): Promise<void> {
  const { expect } = ctx;
  for (const field of fields) {
    for (const descending of [false, true]) {
      const answer = await list(`?sort=${descending ? '-' : ''}${field}`);
      if (!expect.status(answer, 200)) continue;
      // All three share the terminal: any order sorts them by it.
      if (field !== 'terminal')
        expect.that(
          JSON.stringify(batches(answer.body)) === JSON.stringify(ordered(settlements, field, descending)),
          answer,
          '/data',
          `sorted by ${descending ? '-' : ''}${field}: ${ordered(settlements, field, descending).join(', ')}`,
          batches(answer.body).join(', '),
        );
    }
  }
  const byDefault = await list('');
  if (expect.status(byDefault, 200))
    expect.that(
      JSON.stringify(batches(byDefault.body)) === JSON.stringify(ordered(settlements, 'closedAt', true)),
      byDefault,
      '/data',
      `newest closedAt first by default: ${ordered(settlements, 'closedAt', true).join(', ')}`,
      batches(byDefault.body).join(', '),
    );
}

/** Pages of a size, and from and to, both inclusive. */
async function pagesAndRanges(
  ctx: CheckContext,
  list: Lister,
  settlements: Settlement[],
  tag: string,
  at: (offset: number) => string,
): Promise<void> {
  const { expect } = ctx;
  const latest = await list('?sort=-closedAt&size=1');
  if (expect.status(latest, 200))
    expect.equal(latest, '/data', [settlements[0]], 'the latest settlement (sort=-closedAt&size=1)');
  const page2 = await list('?sort=batchNumber&size=2&page=2');
  if (expect.status(page2, 200))
    expect.that(
      JSON.stringify(batches(page2.body)) === JSON.stringify([`B3-${tag}`]),
      page2,
      '/data',
      `B3-${tag} alone on page 2 of size 2`,
      batches(page2.body).join(', '),
    );
  const from = await list(`?from=${encodeURIComponent(at(1000))}&sort=closedAt`);
  if (expect.status(from, 200))
    expect.that(
      JSON.stringify(batches(from.body)) === JSON.stringify([`B3-${tag}`, `B1-${tag}`]),
      from,
      '/data',
      `from is inclusive: B3-${tag}, B1-${tag}`,
      batches(from.body).join(', '),
    );
  const to = await list(`?to=${encodeURIComponent(at(1000))}&sort=closedAt`);
  if (expect.status(to, 200))
    expect.that(
      JSON.stringify(batches(to.body)) === JSON.stringify([`B2-${tag}`, `B3-${tag}`]),
      to,
      '/data',
      `to is inclusive: B2-${tag}, B3-${tag}`,
      batches(to.body).join(', '),
    );
}

export const settlementChecks: Check[] = [
  {
    id: 'settlements.idempotency',
    title: "a settlement sent again is 200 with the stored one; different fields 409; the body's rules",
    source: 'INTERFACE.md §4',
    operations: ['notifySettlement', 'listSettlements'],
    run: replayAndConflict,
  },
  {
    id: 'settlements.query',
    title:
      "sorting on every field both ways, the default order, paging, from/to inclusive, bounds, another merchant's terminal",
    source: 'INTERFACE.md §4, §0',
    operations: ['listSettlements'],
    run: query,
  },
];
