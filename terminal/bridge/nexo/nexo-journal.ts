import { randomBytes } from 'node:crypto';
import { bounded } from '../bounded.js';
import { batchNumberOf, DialectJournal, EMPTY_JOURNAL_BASE, type JournalBase } from '../dialect-journal.js';

// What the nexo bridge, as an Adyen terminal's cash register, keeps beside
// what every dialect's journal keeps (dialect-journal.ts: the request on
// the line, declines, the batch counter, the outbox): each request's
// ServiceID, journaled before the request is sent (after a timeout, a kill
// or a cut line the terminal is asked about that ServiceID before anything
// else), the counter ServiceIDs are drawn from (never reused), and the
// payments a reversal names by their POITransactionID.
//
//   <state-dir>/<serial>/nexo.json
//   <state-dir>/<serial>/sales.jsonl   every payment, reversal and reconciliation, as made

export type NexoInFlight =
  | { kind: 'payment'; serviceId: string; orderId: string; amount: number; currency: string; startedAt: string }
  | { kind: 'reversal'; serviceId: string; orderId: string; transactionId: string; startedAt: string }
  | { kind: 'reconciliation'; serviceId: string; closeId: string; batchNumber: string; startedAt: string };

/** A payment the terminal approved, as a reversal names it. */
export interface NexoPayment {
  orderId: string;
  /** POIData.POITransactionID.TransactionID: <tender reference>.<PSP reference>. */
  transactionId: string;
  transactionTime: string;
  amount: number;
  currency: string;
  authorizationCode: string;
  paidAt: string;
  voided?: boolean;
}

export interface NexoDeclined {
  condition: string;
  at: string;
}

export interface NexoJournalData extends JournalBase<NexoInFlight, NexoDeclined> {
  payments: Record<string, NexoPayment>;
  nextService: number;
}

const FILE = 'nexo.json';

const randomTail = () =>
  BigInt(`0x${randomBytes(8).toString('hex')}`)
    .toString(36)
    .toUpperCase();

/**
 * A ServiceID for a request that moves no money (a diagnosis, a status):
 * random, not journaled; its answer is worth nothing after a restart.
 */
export const passingServiceId = () => `Q${randomTail()}`.slice(0, 10);

export { batchNumberOf };

export class NexoJournal extends DialectJournal<NexoInFlight, NexoDeclined, NexoJournalData> {
  static async open(dir: string): Promise<NexoJournal> {
    const empty: NexoJournalData = { ...EMPTY_JOURNAL_BASE, declined: {}, outbox: [], payments: {}, nextService: 1 };
    return new NexoJournal(dir, FILE, { ...empty, ...((await DialectJournal.read<NexoJournalData>(dir, FILE)) ?? {}) });
  }

  payment(orderId: string): NexoPayment | undefined {
    return this.data.payments[orderId];
  }

  /**
   * A ServiceID never used before, durable before it is used: the counter
   * in base 36 and random characters to ten (unique per SaleID, as nexo
   * wants, even for a bridge whose state was wiped).
   */
  async nextServiceId(): Promise<string> {
    const counter = this.data.nextService;
    await this.write({ ...this.data, nextService: counter + 1 });
    const head = counter.toString(36).toUpperCase();
    const tail = BigInt(`0x${randomBytes(8).toString('hex')}`)
      .toString(36)
      .toUpperCase();
    return `${head}${tail}`.slice(0, 10);
  }

  async paid(payment: NexoPayment): Promise<void> {
    await this.paymentMade(payment, { payments: bounded({ ...this.data.payments, [payment.orderId]: payment }) });
  }

  async voided(orderId: string, voidedAt: string, reversal: string): Promise<void> {
    const payment = this.data.payments[orderId];
    await this.recorded(
      { kind: 'void', orderId, voidedAt },
      payment ? { payments: { ...this.data.payments, [orderId]: { ...payment, voided: true } } } : {},
    );
    await this.forTechnician({
      event: 'reversal',
      orderId,
      transactionId: payment?.transactionId ?? null,
      reversal,
      voidedAt,
    });
  }

  /** The terminal reconciled: one settlement of its totals; the batch counter moves on. */
  async reconciled(
    close: Extract<NexoInFlight, { kind: 'reconciliation' }>,
    totals: { count: number; currency: string; reconciliationId: string },
    terminal: string,
    closedAt: string,
  ): Promise<void> {
    await this.closedBatch(
      {
        kind: 'settlement',
        batchNumber: close.batchNumber,
        transactionCount: totals.count,
        closedAt,
        currencyReference: totals.currency,
        terminal,
      },
      close.closeId,
    );
    await this.forTechnician({ event: 'reconciliation', batchNumber: close.batchNumber, ...totals, closedAt });
  }
}
