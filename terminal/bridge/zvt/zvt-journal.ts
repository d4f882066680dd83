import { BridgeError } from '../../errors.js';
import type { StatusReading } from './status-reading.js';
import { bounded } from '../bounded.js';
import { batchNumberOf, DialectJournal, EMPTY_JOURNAL_BASE, type JournalBase } from '../dialect-journal.js';

// What the ZVT bridge, as the terminal's cash register, keeps beside what
// every dialect's journal keeps (dialect-journal.ts: the transaction on the
// line, declines, the batch counter, the outbox): the terminal's status
// information for the transaction in flight once it came (written before
// the bridge acknowledges it: PA00P015 §2.2.8 makes that answer the moment
// the terminal stores the payment, so a kill on either side of it is
// resolved by asking the terminal, never guessed), the payments of the
// terminal's turnover (a reversal names a payment by its receipt number),
// and the newest trace number seen.
//
//   <state-dir>/<serial>/zvt.json
//   <state-dir>/<serial>/sales.jsonl   every payment, reversal, refund and end of day, as made

export type ZvtInFlight =
  | { kind: 'payment'; orderId: string; amount: number; currency: string; startedAt: string; status?: StatusReading }
  | { kind: 'reversal'; orderId: string; receipt: number; amount: number; startedAt: string; status?: StatusReading }
  | { kind: 'refund'; orderId: string; amount: number; currency: string; startedAt: string; status?: StatusReading }
  | { kind: 'end-of-day'; closeId: string; batchNumber: string; startedAt: string; status?: StatusReading };

/** A payment the terminal stored, as the bridge keeps it for a reversal. */
export interface StoredPayment {
  orderId: string;
  amount: number;
  currency: string;
  receipt: number;
  trace: number;
  authorizationCode: string;
  paidAt: string;
  /** Closed by an end of day: the terminal no longer reverses it (B5); a void goes by refund. */
  closed?: boolean;
  voided?: boolean;
}

/** A payment, reversal or refund the terminal declined. */
export interface ZvtDeclined {
  resultCode: string;
  at: string;
}

export interface ZvtJournalData extends JournalBase<ZvtInFlight, ZvtDeclined> {
  payments: Record<string, StoredPayment>;
  /** The newest trace number the terminal has given in status information: an end of day newer than it is not the bridge's yet. */
  lastTrace: number;
}

export { batchNumberOf };

const FILE = 'zvt.json';

const empty = (): ZvtJournalData => ({ ...EMPTY_JOURNAL_BASE, declined: {}, outbox: [], payments: {}, lastTrace: 0 });

export class ZvtJournal extends DialectJournal<ZvtInFlight, ZvtDeclined, ZvtJournalData> {
  static async open(dir: string): Promise<ZvtJournal> {
    return new ZvtJournal(dir, FILE, { ...empty(), ...((await DialectJournal.read<ZvtJournalData>(dir, FILE)) ?? {}) });
  }

  payment(orderId: string): StoredPayment | undefined {
    return this.data.payments[orderId];
  }

  /** The terminal's status information for the transaction in flight: durable before the bridge answers it. */
  async statusCame(status: StatusReading): Promise<void> {
    const inFlight = this.data.inFlight;
    if (!inFlight)
      throw new BridgeError('DEVICE_OUT_OF_STEP', 'status information with nothing in flight', { dialect: 'zvt' });
    await this.write({
      ...this.data,
      inFlight: { ...inFlight, status },
      lastTrace: Math.max(this.data.lastTrace, status.trace ?? 0),
    });
  }

  /** The payment is stored on the terminal: its record goes to the outbox. */
  async paid(payment: StoredPayment): Promise<void> {
    await this.paymentMade(payment, { payments: bounded({ ...this.data.payments, [payment.orderId]: payment }) });
  }

  /** The order's payment is reversed or refunded on the terminal: its void goes to the outbox. */
  async voided(orderId: string, how: 'reversal' | 'refund', voidedAt: string, status?: StatusReading): Promise<void> {
    const payment = this.data.payments[orderId];
    await this.recorded(
      { kind: 'void', orderId, voidedAt },
      payment ? { payments: { ...this.data.payments, [orderId]: { ...payment, voided: true } } } : {},
    );
    await this.forTechnician({
      event: how,
      orderId,
      receipt: status?.receipt ?? null,
      trace: status?.trace ?? null,
      voidedAt,
    });
  }

  /** The end of day closed the terminal's turnover: one settlement, the counter moves on, its payments are closed. */
  async closed(
    close: Extract<ZvtInFlight, { kind: 'end-of-day' }>,
    totals: { count: number; total: number },
    currency: string,
    terminal: string,
    closedAt: string,
  ): Promise<void> {
    const payments = Object.fromEntries(
      Object.entries(this.data.payments).map(([orderId, payment]) => [orderId, { ...payment, closed: true }]),
    );
    await this.closedBatch(
      {
        kind: 'settlement',
        batchNumber: close.batchNumber,
        transactionCount: totals.count,
        closedAt,
        currencyReference: currency,
        terminal,
      },
      close.closeId,
      { payments },
    );
    await this.forTechnician({ event: 'end-of-day', batchNumber: close.batchNumber, ...totals, closedAt });
  }

  /** The bridge had the terminal initialised (status 51) or diagnosed (C2): noted for the technician. */
  async serviced(event: 'initialisation' | 'diagnosis', status: string, outcome: string, at: string): Promise<void> {
    await this.forTechnician({ event, terminalStatus: status, outcome, at });
  }

  /** The terminal says the payment left its turnover (B5): a void of it goes by refund. */
  async markClosed(orderId: string): Promise<void> {
    const payment = this.data.payments[orderId];
    if (payment)
      await this.write({ ...this.data, payments: { ...this.data.payments, [orderId]: { ...payment, closed: true } } });
  }
}
