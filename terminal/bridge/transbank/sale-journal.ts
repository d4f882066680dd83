import type { MoneyRecord } from '../money-record.js';
import { storedRecord } from '../stored-record.js';
import { bounded } from '../bounded.js';
import { batchNumberOf, DialectJournal, EMPTY_JOURNAL_BASE, type JournalBase } from '../dialect-journal.js';
import { CLP } from '../../protocol/currencies.js';

// What the Transbank bridge, as the cash register of a POS, keeps beside
// what every dialect's journal keeps (dialect-journal.ts: the request on
// the line, declines, the batch counter, the outbox): the ticket it gave
// each order, and the sales of the open batch (a refund needs the sale's
// operation number). A sale declined is not sold again until a cashier says
// so (svc-terminal retry).
//
//   <state-dir>/<serial>/transbank.json
//   <state-dir>/<serial>/sales.jsonl     every sale, refund and close the POS made

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

/** A sale or refund the POS declined. */
export interface Declined {
  responseCode: string;
  at: string;
}

const FILE = 'transbank.json';

export interface SaleJournalData extends JournalBase<SaleInFlight, Declined> {
  nextTicket: number;
  tickets: Record<string, string>;
  sales: Record<string, ApprovedSale>;
}

/** A ticket is 6 characters (the reference's limit): a counter in base 36, which lasts 2 billion orders. */
export const ticketOf = (counter: number) => counter.toString(36).toUpperCase().padStart(6, '0');

export { batchNumberOf };

export function emptyJournal(): SaleJournalData {
  return { ...EMPTY_JOURNAL_BASE, nextTicket: 1, tickets: {}, sales: {}, declined: {}, outbox: [] };
}

export class SaleJournal extends DialectJournal<SaleInFlight, Declined, SaleJournalData> {
  static async open(dir: string): Promise<SaleJournal> {
    const stored = await DialectJournal.read<SaleJournalData>(dir, FILE);
    // An outbox written by an earlier version holds records in the svc device's shape: read as they are now.
    return new SaleJournal(dir, FILE, {
      ...emptyJournal(),
      ...(stored ? { ...stored, outbox: (stored.outbox ?? []).map(storedRecord) } : {}),
    });
  }

  sale(orderId: string): ApprovedSale | undefined {
    return this.data.sales[orderId];
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

  async saleApproved(sale: ApprovedSale): Promise<void> {
    const { [sale.orderId]: _ticket, ...tickets } = this.data.tickets;
    await this.recorded(
      {
        kind: 'payment',
        orderId: sale.orderId,
        amount: sale.amount,
        currency: CLP.alpha,
        authorizationCode: sale.authorizationCode,
        paidAt: sale.approvedAt,
      },
      { tickets, sales: { ...this.data.sales, [sale.orderId]: sale } },
    );
    await this.forTechnician({ event: 'sale', ...sale });
  }

  async refunded(orderId: string, voidedAt: string): Promise<void> {
    const sale = this.data.sales[orderId];
    await this.recorded(
      { kind: 'void', orderId, voidedAt },
      sale ? { sales: { ...this.data.sales, [orderId]: { ...sale, refunded: true } } } : {},
    );
    await this.forTechnician({
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
    const record = await this.closedBatch(
      {
        kind: 'settlement',
        batchNumber: close.batchNumber,
        transactionCount: close.transactionCount,
        closedAt,
        currencyReference: CLP.alpha,
        terminal,
      },
      close.closeId,
      { sales: {} },
    );
    await this.forTechnician({
      event: 'close',
      batchNumber: close.batchNumber,
      transactionCount: close.transactionCount,
      total: close.total,
      closedAt,
    });
    return record;
  }
}
