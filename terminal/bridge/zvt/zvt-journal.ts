import { join } from 'node:path';
import { appendDurably, readJson, writeDurably } from '../durable-file.js';
import type { MoneyRecord } from '../money-record.js';
import type { StatusReading } from './status-reading.js';
import { bounded } from '../bounded.js';

// What the ZVT bridge, as the terminal's cash register, must not forget
// across a kill: the one transaction on the line (written before it goes
// out), and the terminal's status information for it once it came (written
// before the bridge acknowledges it: PA00P015 §2.2.8 makes that answer the
// moment the terminal stores the payment, so a kill on either side of it
// is resolved by asking the terminal, never guessed); the payments of the
// terminal's turnover (a reversal names a payment by its receipt number);
// the orders declined; the batch counter; and the records the server has
// not taken yet. One small file, written whole and durably at each change.
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

export interface ZvtJournalData {
  inFlight: ZvtInFlight | null;
  payments: Record<string, StoredPayment>;
  declined: Record<string, { resultCode: string; at: string }>;
  outbox: MoneyRecord[];
  nextSeq: number;
  nextBatch: number;
  lastCloseId?: string;
  /** The newest trace number the terminal has given in status information: an end of day newer than it is not the bridge's yet. */
  lastTrace: number;
}

export const batchNumberOf = (counter: number) => `B${String(counter).padStart(4, '0')}`;

const empty = (): ZvtJournalData => ({
  inFlight: null,
  payments: {},
  declined: {},
  outbox: [],
  nextSeq: 1,
  nextBatch: 1,
  lastTrace: 0,
});

export class ZvtJournal {
  private constructor(
    private readonly dir: string,
    private data: ZvtJournalData,
  ) {}

  static async open(dir: string): Promise<ZvtJournal> {
    return new ZvtJournal(dir, { ...empty(), ...((await readJson<ZvtJournalData>(join(dir, 'zvt.json'))) ?? {}) });
  }

  get snapshot(): Readonly<ZvtJournalData> {
    return this.data;
  }

  get inFlight(): ZvtInFlight | null {
    return this.data.inFlight;
  }

  get nextBatchNumber(): string {
    return batchNumberOf(this.data.nextBatch);
  }

  payment(orderId: string): StoredPayment | undefined {
    return this.data.payments[orderId];
  }

  declined(key: string): { resultCode: string; at: string } | undefined {
    return this.data.declined[key];
  }

  /** Before the command goes on the line. */
  async begin(inFlight: ZvtInFlight): Promise<void> {
    if (this.data.inFlight) throw new Error(`a ${this.data.inFlight.kind} is still in flight`);
    await this.write({ ...this.data, inFlight });
  }

  /** The terminal's status information for the transaction in flight: durable before the bridge answers it. */
  async statusCame(status: StatusReading): Promise<void> {
    const inFlight = this.data.inFlight;
    if (!inFlight) throw new Error('status information with nothing in flight');
    await this.write({
      ...this.data,
      inFlight: { ...inFlight, status },
      lastTrace: Math.max(this.data.lastTrace, status.trace ?? 0),
    });
  }

  /** Seen in status information that is not the transaction's own (a repeat receipt). */
  async traceSeen(trace: number | undefined): Promise<void> {
    if (trace !== undefined && trace > this.data.lastTrace) await this.write({ ...this.data, lastTrace: trace });
  }

  /** The payment is stored on the terminal: its record goes to the outbox. */
  async paid(payment: StoredPayment): Promise<void> {
    const record: MoneyRecord = {
      kind: 'payment',
      seq: this.data.nextSeq,
      orderId: payment.orderId,
      amount: payment.amount,
      currency: payment.currency,
      authorizationCode: payment.authorizationCode,
      paidAt: payment.paidAt,
    };
    await this.write({
      ...this.data,
      inFlight: null,
      payments: bounded({ ...this.data.payments, [payment.orderId]: payment }),
      outbox: [...this.data.outbox, record],
      nextSeq: this.data.nextSeq + 1,
    });
    await this.forTechnician({ event: 'payment', ...payment });
  }

  /** The order's payment is reversed or refunded on the terminal: its void goes to the outbox. */
  async voided(orderId: string, how: 'reversal' | 'refund', voidedAt: string, status?: StatusReading): Promise<void> {
    const payment = this.data.payments[orderId];
    const record: MoneyRecord = { kind: 'void', seq: this.data.nextSeq, orderId, voidedAt };
    await this.write({
      ...this.data,
      inFlight: null,
      payments: payment ? { ...this.data.payments, [orderId]: { ...payment, voided: true } } : this.data.payments,
      outbox: [...this.data.outbox, record],
      nextSeq: this.data.nextSeq + 1,
    });
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
    const record: MoneyRecord = {
      kind: 'settlement',
      seq: this.data.nextSeq,
      batchNumber: close.batchNumber,
      transactionCount: totals.count,
      closedAt,
      currencyReference: currency,
      terminal,
      debitBatch: `D${close.batchNumber.slice(1)}`,
    };
    const payments = Object.fromEntries(
      Object.entries(this.data.payments).map(([orderId, payment]) => [orderId, { ...payment, closed: true }]),
    );
    await this.write({
      ...this.data,
      inFlight: null,
      payments,
      outbox: [...this.data.outbox, record],
      nextSeq: this.data.nextSeq + 1,
      nextBatch: this.data.nextBatch + 1,
      lastCloseId: close.closeId,
    });
    await this.forTechnician({ event: 'end-of-day', batchNumber: close.batchNumber, ...totals, closedAt });
  }

  /** The terminal says the payment left its turnover (B5): a void of it goes by refund. */
  async markClosed(orderId: string): Promise<void> {
    const payment = this.data.payments[orderId];
    if (payment)
      await this.write({ ...this.data, payments: { ...this.data.payments, [orderId]: { ...payment, closed: true } } });
  }

  /** Not asked again by itself: the terminal declined it, or an operator discarded it. */
  async decline(key: string, resultCode: string, at: string): Promise<void> {
    await this.write({
      ...this.data,
      inFlight: null,
      declined: bounded({ ...this.data.declined, [key]: { resultCode, at } }),
    });
  }

  async clearDeclined(key: string): Promise<void> {
    const { [key]: _gone, ...declined } = this.data.declined;
    await this.write({ ...this.data, declined });
  }

  /** The transaction in flight did not happen (or is held for an operator): nothing more to establish. */
  async nothingInFlight(): Promise<void> {
    await this.write({ ...this.data, inFlight: null });
  }

  async delivered(seq: number): Promise<void> {
    await this.write({ ...this.data, outbox: this.data.outbox.filter((record) => record.seq !== seq) });
  }

  private async write(next: ZvtJournalData): Promise<void> {
    await writeDurably(join(this.dir, 'zvt.json'), `${JSON.stringify(next)}\n`);
    this.data = next;
  }

  private async forTechnician(entry: Record<string, unknown>): Promise<void> {
    await appendDurably(join(this.dir, 'sales.jsonl'), `${JSON.stringify(entry)}\n`);
  }
}
