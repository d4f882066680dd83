import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { storedPayment } from './zvt-bridge-testkit.js';
import { ZvtJournal } from './zvt-journal.js';

// The ZVT bridge's journal: what it keeps survives reopening, status
// information needs a transaction in flight, and the technician's file
// gets a line for every end of day and every service run.

const payment = storedPayment;
const lines = async (dir: string) =>
  (await readFile(join(dir, 'sales.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

t.test(
  'reopened, the journal holds what was written: payments, the last trace, the transaction in flight',
  async (t) => {
    const dir = t.testdir();
    const journal = await ZvtJournal.open(dir);
    await journal.paid(payment);
    await journal.begin({ kind: 'payment', orderId: 'o-2', amount: 500, currency: 'EUR', startedAt: 'now' });
    await journal.statusCame({ resultCode: 0, amount: 500, trace: 12, receipt: 7 });
    const again = await ZvtJournal.open(dir);
    t.match(again.payment('o-1'), payment);
    t.equal(again.snapshot.lastTrace, 12);
    t.match(again.inFlight, { orderId: 'o-2', status: { trace: 12, receipt: 7 } });
    const fresh = await ZvtJournal.open(t.testdir());
    t.same(fresh.snapshot.payments, {});
    t.equal(fresh.snapshot.lastTrace, 0);
  },
);

t.test('status information with nothing in flight is a fault, not a record', async (t) => {
  const journal = await ZvtJournal.open(t.testdir());
  await t.rejects(journal.statusCame({ resultCode: 0 }), /status information with nothing in flight/);
  await journal.begin({ kind: 'payment', orderId: 'o-3', amount: 1, currency: 'EUR', startedAt: 'now' });
  await journal.statusCame({ resultCode: 0, trace: 5 });
  await journal.statusCame({ resultCode: 0 });
  t.equal(journal.snapshot.lastTrace, 5, 'a status information without a trace keeps the last one seen');
});

t.test("the technician's lines: an end of day with its totals, a service run with its outcome", async (t) => {
  const dir = t.testdir();
  const journal = await ZvtJournal.open(dir);
  const close = { kind: 'end-of-day' as const, closeId: 'c-1', batchNumber: 'B0001', startedAt: 'then' };
  await journal.begin(close);
  await journal.closed(close, { count: 2, total: 3000 }, 'EUR', 'ZVT-1', '2026-11-28T10:00:00.000Z');
  await journal.serviced('initialisation', '51', 'done', '2026-11-28T10:01:00.000Z');
  t.same(await lines(dir), [
    { event: 'end-of-day', batchNumber: 'B0001', count: 2, total: 3000, closedAt: '2026-11-28T10:00:00.000Z' },
    { event: 'initialisation', terminalStatus: '51', outcome: 'done', at: '2026-11-28T10:01:00.000Z' },
  ]);
});

t.test('marking a payment closed touches that payment only; an unknown one is left alone', async (t) => {
  const journal = await ZvtJournal.open(t.testdir());
  await journal.paid(payment);
  await journal.markClosed('nobody');
  t.same(Object.keys(journal.snapshot.payments), ['o-1']);
  t.notOk(journal.payment('o-1')?.closed);
  await journal.markClosed('o-1');
  t.equal(journal.payment('o-1')?.closed, true);
});
