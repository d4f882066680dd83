import { join } from 'node:path';
import type { MoneyRecord } from '../money-record.js';
import { storedRecord } from '../svc/svc-records.js';
import { appendDurably, readJson, writeDurably } from '../durable-file.js';
import { bounded } from '../bounded.js';

// What the Transbank bridge, as the cash register of a POS, must not forget
// across a kill: the ticket it gave each order, the one money request on the
// line (written before it goes out, so a restarted bridge asks the POS what
// became of it before sending anything else), the sales of the open batch
// (a refund needs the sale's operation number), the orders the POS declined
// (not sold again until a cashier says so), the batch counter, and the
// records the server has not yet taken. One small file, written whole and
// durably at every change; what it holds is bounded by the open batch and
// the orders in flight, never by history.
//
//   <state-dir>/<serial>/transbank.json
//   <state-dir>/<serial>/sales.jsonl     every sale, refund and close the POS
//                                        made, as recorded (never read back:
//                                        the record a technician reads)

/** The money request on the line, if any: its outcome is established from the POS before anything else is sent. */
export type SaleInFlight =
  | { kind: 'sale'; orderId: string; ticket: string; amount: number; startedAt: string }
  | { kind: 'refund'; orderId: string; operationNumber: string; startedAt: string }
  | { kind: 'close'; closeId: string; batchNumber: string; transactionCount: number; total: number; startedAt: string };

/** A sale the POS approved, as the bridge keeps it: what the server is told, and what a refund needs. */
export interface ApprovedSale {
  orderId: string;
  ticket: string;
  amount: number;
  authorizationCode: string;
  operationNumber: string;
  cardType: string | null;
  last4Digits: string | null;
  approvedAt: string;
  refunded?: boolean;
}

export interface Declined {
  responseCode: string;
  at: string;
}

export interface SaleJournalData {
  nextTicket: number;
  tickets: Record<string, string>;
  inFlight: SaleInFlight | null;
  sales: Record<string, ApprovedSale>;
  declined: Record<string, Declined>;
  /** Records for the server, oldest first: each leaves only once the server holds it. */
  outbox: MoneyRecord[];
  nextSeq: number;
  nextBatch: number;
  /** The close request (PendingClose.closeId) the POS last carried out: the same request is never closed twice. */
  lastCloseId?: string;
}

/** A ticket is 6 characters (the reference's limit): a counter in base 36, which lasts 2 billion orders. */
export const ticketOf = (counter: number) => counter.toString(36).toUpperCase().padStart(6, '0');

/** The settlement's batch number, from the bridge's durable counter. */
export const batchNumberOf = (counter: number) => `B${String(counter).padStart(4, '0')}`;

export function emptyJournal(): SaleJournalData {
  return { nextTicket: 1, tickets: {}, inFlight: null, sales: {}, declined: {}, outbox: [], nextSeq: 1, nextBatch: 1 };
}

export class SaleJournal {
  private constructor(
    private readonly dir: string,
    private data: SaleJournalData,
  ) {}

  static async open(dir: string): Promise<SaleJournal> {
    const stored = await readJson<SaleJournalData>(join(dir, 'transbank.json'));
    // An outbox written by an earlier version holds records in the svc device's shape: read as they are now.
    return new SaleJournal(dir, {
      ...emptyJournal(),
      ...(stored ? { ...stored, outbox: stored.outbox.map(storedRecord) } : {}),
    });
  }

  get snapshot(): Readonly<SaleJournalData> {
    return this.data;
  }

  get inFlight(): SaleInFlight | null {
    return this.data.inFlight;
  }

  sale(orderId: string): ApprovedSale | undefined {
    return this.data.sales[orderId];
  }

  declined(key: string): Declined | undefined {
    return this.data.declined[key];
  }

  /** The order's ticket: the one it was given, or the next of the counter (written before it is used). */
  async ticketFor(orderId: string): Promise<string> {
    const known = this.data.tickets[orderId];
    if (known) return known;
    const ticket = ticketOf(this.data.nextTicket);
    const tickets = bounded({ ...this.data.tickets, [orderId]: ticket });
    await this.write({ ...this.data, nextTicket: this.data.nextTicket + 1, tickets });
    return ticket;
  }

  /** Before the request goes on the line. */
  async begin(inFlight: SaleInFlight): Promise<void> {
    if (this.data.inFlight) throw new Error(`a ${this.data.inFlight.kind} is still in flight`);
    await this.write({ ...this.data, inFlight });
  }

  /** The next batch number, to journal with a close before it goes on the line. */
  get nextBatchNumber(): string {
    return batchNumberOf(this.data.nextBatch);
  }

  async saleApproved(sale: ApprovedSale): Promise<void> {
    const { [sale.orderId]: _ticket, ...tickets } = this.data.tickets;
    const record: MoneyRecord = {
      kind: 'payment',
      seq: this.data.nextSeq,
      orderId: sale.orderId,
      amount: sale.amount,
      currency: 'CLP',
      authorizationCode: sale.authorizationCode,
      paidAt: sale.approvedAt,
    };
    await this.write({
      ...this.data,
      tickets,
      inFlight: null,
      sales: { ...this.data.sales, [sale.orderId]: sale },
      outbox: [...this.data.outbox, record],
      nextSeq: this.data.nextSeq + 1,
    });
    await this.recordForTechnician({ event: 'sale', ...sale });
  }

  /** Not sold (or refunded) again by itself: the POS declined it, or an operator discarded it. Keyed by `sale:ORDER` or `refund:ORDER`. */
  async decline(key: string, declined: Declined): Promise<void> {
    await this.write({ ...this.data, inFlight: null, declined: bounded({ ...this.data.declined, [key]: declined }) });
  }

  /** The request in flight did not happen, or its outcome is held for an operator: nothing more to establish. */
  async nothingInFlight(): Promise<void> {
    await this.write({ ...this.data, inFlight: null });
  }

  async clearDeclined(key: string): Promise<void> {
    const { [key]: _gone, ...declined } = this.data.declined;
    await this.write({ ...this.data, declined });
  }

  async refunded(orderId: string, voidedAt: string): Promise<void> {
    const sale = this.data.sales[orderId];
    const record: MoneyRecord = { kind: 'void', seq: this.data.nextSeq, orderId, voidedAt };
    await this.write({
      ...this.data,
      inFlight: null,
      sales: sale ? { ...this.data.sales, [orderId]: { ...sale, refunded: true } } : this.data.sales,
      outbox: [...this.data.outbox, record],
      nextSeq: this.data.nextSeq + 1,
    });
    await this.recordForTechnician({
      event: 'refund',
      orderId,
      operationNumber: sale?.operationNumber ?? null,
      refundedAt: voidedAt,
    });
  }

  /** The POS closed the day: the settlement goes to the outbox, the batch's sales are forgotten, the counter moves on. */
  async closed(
    close: Extract<SaleInFlight, { kind: 'close' }>,
    terminal: string,
    closedAt: string,
  ): Promise<MoneyRecord> {
    const record: MoneyRecord = {
      kind: 'settlement',
      seq: this.data.nextSeq,
      batchNumber: close.batchNumber,
      transactionCount: close.transactionCount,
      closedAt,
      currencyReference: 'CLP',
      terminal,
      debitBatch: `D${close.batchNumber.slice(1)}`,
    };
    await this.write({
      ...this.data,
      inFlight: null,
      sales: {},
      outbox: [...this.data.outbox, record],
      nextSeq: this.data.nextSeq + 1,
      nextBatch: this.data.nextBatch + 1,
      lastCloseId: close.closeId,
    });
    await this.recordForTechnician({
      event: 'close',
      batchNumber: close.batchNumber,
      transactionCount: close.transactionCount,
      total: close.total,
      closedAt,
    });
    return record;
  }

  /** The server holds the record (or an operator discarded it): it leaves the outbox. */
  async delivered(seq: number): Promise<void> {
    await this.write({ ...this.data, outbox: this.data.outbox.filter((record) => record.seq !== seq) });
  }

  private async write(next: SaleJournalData): Promise<void> {
    await writeDurably(join(this.dir, 'transbank.json'), `${JSON.stringify(next)}\n`);
    this.data = next;
  }

  /** After the journal: a kill between the two loses a line of this record, never the sale. */
  private async recordForTechnician(entry: Record<string, unknown>): Promise<void> {
    await appendDurably(join(this.dir, 'sales.jsonl'), `${JSON.stringify(entry)}\n`);
  }
}
