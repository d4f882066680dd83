import { join } from 'node:path';
import t from 'tap';
import { ManualTimers } from '../../protocol/timers.js';
import type { Body, MessageHeader, NexoMessage } from '../../protocol/nexo/messages.js';
import { NexoTerminal } from './nexo-terminal.js';

// The emulated nexo terminal's memory, with time moved by hand: a payment
// runs to its end whatever its cash register does, its response is kept
// under its ServiceID across a restart, and a payment the terminal's own
// restart cut short ends Failure/Aborted, never approved on a guess.

const POIID = 'V400m-324688179';
let next = 0;
const message = (category: string, body: Body, serviceId = `S${++next}`): NexoMessage => ({
  header: {
    ProtocolVersion: '3.0',
    MessageClass: 'Service',
    MessageCategory: category,
    MessageType: 'Request',
    SaleID: 'ECR',
    ServiceID: serviceId,
    POIID,
  } as MessageHeader,
  body,
});
const payment = (amount: number, serviceId?: string) =>
  message('Payment', { PaymentTransaction: { AmountsReq: { Currency: 'EUR', RequestedAmount: amount } } }, serviceId);
const status = (serviceId: string) =>
  message('TransactionStatus', {
    MessageReference: { MessageCategory: 'Payment', SaleID: 'ECR', ServiceID: serviceId },
  });
const response = (answer: NexoMessage | null) => (answer?.body.Response ?? {}) as Body;

t.test('a payment runs to its end and is repeated the same, across a restart', async (t) => {
  const statePath = join(t.testdir(), 'terminal.json');
  const timers = new ManualTimers();
  const terminal = new NexoTerminal({ poiid: POIID, cardDelayMs: 1000, statePath, timers });
  const running = terminal.handle(payment(12, 'P1'));
  t.match(response(await terminal.handle(status('P1'))), { Result: 'Failure', ErrorCondition: 'InProgress' });
  t.match(response(await terminal.handle(payment(3))), { ErrorCondition: 'Busy' }, 'another payment: Busy at once');
  timers.advance(1000);
  const paid = await running;
  t.equal(response(paid).Result, 'Success');
  const repeated = (await terminal.handle(status('P1')))!.body.RepeatedMessageResponse as Body;
  const restarted = new NexoTerminal({ poiid: POIID, statePath, timers });
  const after = (await restarted.handle(status('P1')))!.body.RepeatedMessageResponse as Body;
  t.same(after, repeated, 'the same response after a restart');
  t.match(response(await restarted.handle(payment(12, 'P1'))), { ErrorCondition: 'NotAllowed' }, 'never run twice');
});

t.test("a payment the terminal's restart cut short ends Failure/Aborted", async (t) => {
  const statePath = join(t.testdir(), 'terminal.json');
  const timers = new ManualTimers();
  const first = new NexoTerminal({ poiid: POIID, cardDelayMs: 1000, statePath, timers });
  void first.handle(payment(20, 'CUT'));
  // Killed at the card: the next life reads what the first wrote.
  const second = new NexoTerminal({ poiid: POIID, statePath, timers: new ManualTimers() });
  const said = await second.handle(status('CUT'));
  const original = ((said!.body.RepeatedMessageResponse as Body).RepeatedResponseMessageBody as Body)
    .PaymentResponse as Body;
  t.match(original.Response, { Result: 'Failure', ErrorCondition: 'Aborted' });
  t.same(second.snapshot.totals, {}, 'nothing counted');
});

t.test('an abort ends the running payment; an abort of another is ignored', async (t) => {
  const timers = new ManualTimers();
  const terminal = new NexoTerminal({ poiid: POIID, cardDelayMs: 1000, timers });
  const running = terminal.handle(payment(7, 'A1'));
  t.equal(await terminal.handle(message('Abort', { MessageReference: { SaleID: 'ECR', ServiceID: 'OTHER' } })), null);
  t.ok(terminal.busy, 'still running');
  t.equal(await terminal.handle(message('Abort', { MessageReference: { SaleID: 'ECR', ServiceID: 'A1' } })), null);
  t.match(response(await running), { Result: 'Failure', ErrorCondition: 'Aborted' });
  t.notOk(terminal.busy);
  t.equal(timers.armed, 0, 'the card timer is gone');
});

t.test('reversals never go beyond the payment, and reconciliation counts by type', async (t) => {
  const timers = new ManualTimers();
  const terminal = new NexoTerminal({ poiid: POIID, cardDelayMs: 0, timers });
  const paying = terminal.handle(payment(10));
  timers.advance(0);
  const paid = (await paying)!.body;
  const id = ((paid.POIData as Body).POITransactionID as Body).TransactionID as string;
  const reverse = (amount?: number) =>
    terminal.handle(
      message('Reversal', {
        OriginalPOITransaction: { POITransactionID: { TransactionID: id } },
        ...(amount !== undefined ? { ReversedAmount: amount } : {}),
      }),
    );
  t.equal(response(await reverse(4)).Result, 'Success');
  t.match(response(await reverse(6.01)), { ErrorCondition: 'NotAllowed' });
  t.equal(response(await reverse()).Result, 'Success', 'the rest, 6.00');
  t.match(response(await reverse(0.01)), { ErrorCondition: 'NotAllowed' }, 'nothing left');
  const recon = (await terminal.handle(message('Reconciliation', { ReconciliationType: 'SaleReconciliation' })))!.body;
  t.same(recon.TransactionTotals, [
    {
      PaymentInstrumentType: 'Card',
      PaymentCurrency: 'EUR',
      PaymentTotals: [
        { TransactionType: 'Debit', TransactionCount: 1, TransactionAmount: 10 },
        { TransactionType: 'ReverseDebit', TransactionCount: 2, TransactionAmount: 10 },
      ],
    },
  ]);
  t.equal(terminal.snapshot.reconciledCount, 3);
});
