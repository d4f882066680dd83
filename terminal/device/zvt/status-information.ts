import { bcdNumber, packBcd } from '../../protocol/zvt/bcd.js';
import { encodeFields } from '../../protocol/zvt/bitmaps.js';
import { EURO } from '../../protocol/zvt/messages.js';
import type { Card, StoredTransaction, Totals } from './zvt-state.js';

// The data blocks of the status information (04 0F) an emulated terminal
// sends (PA00P015 §3.1.1, §3.1.3): bitmaps, currency only when the cash
// register sent one.

const two = (value: number) => String(value).padStart(2, '0');
const time = (at: Date) => packBcd(`${two(at.getUTCHours())}${two(at.getUTCMinutes())}${two(at.getUTCSeconds())}`);
const date = (at: Date) => packBcd(`${two(at.getUTCMonth() + 1)}${two(at.getUTCDate())}`);
const currency = (sent: boolean) => (sent ? [{ bmp: 0x49, value: bcdNumber(EURO, 2) }] : []);
const terminalId = (id: string) => ({ bmp: 0x29, value: packBcd(id) });

/** The PAN as bitmap 22 carries it: BCD nibbles, 'E' masking, an 'F' padding an odd count. */
export function panField(maskedPan: string): Buffer {
  const even = maskedPan.length % 2 === 0 ? maskedPan : `${maskedPan}F`;
  return Buffer.from(even, 'hex');
}

/** Bitmap 8B: the card's name, null-terminated as terminals send it. */
const cardName = (card: Card) => ({ bmp: 0x8b, value: Buffer.from(`${card.name}\0`, 'latin1') });

export interface Approved {
  transaction: Omit<StoredTransaction, 'reversed'>;
  /** A reversal: the trace number of the payment reversed (bitmap 37). */
  originalTrace?: number;
  currencySent: boolean;
  terminalId: string;
}

/** An approved payment, refund or reversal. */
export function approvedStatus({ transaction, originalTrace, currencySent, terminalId: id }: Approved): Buffer {
  const at = new Date(transaction.at);
  return encodeFields([
    { bmp: 0x27, value: Buffer.of(0x00) },
    { bmp: 0x04, value: bcdNumber(transaction.amount, 6) },
    { bmp: 0x0b, value: bcdNumber(transaction.trace, 3) },
    ...(originalTrace !== undefined ? [{ bmp: 0x37, value: bcdNumber(originalTrace, 3) }] : []),
    { bmp: 0x0c, value: time(at) },
    { bmp: 0x0d, value: date(at) },
    { bmp: 0x0e, value: packBcd(transaction.card.expiry) },
    { bmp: 0x19, value: Buffer.of(0x60) }, // online
    { bmp: 0x22, value: panField(transaction.card.maskedPan) },
    terminalId(id),
    { bmp: 0x3b, value: Buffer.from(transaction.aid.padEnd(8, '\0').slice(0, 8), 'latin1') },
    ...currency(currencySent),
    { bmp: 0x87, value: bcdNumber(transaction.receipt, 2) },
    { bmp: 0x8a, value: Buffer.of(transaction.card.type) },
    cardName(transaction.card),
  ]);
}

/** A declined (or otherwise failed) transaction: its result code, and what is known of it. */
export function failedStatus(
  resultCode: number,
  id: string,
  details: { amount?: number; trace?: number; at?: Date; receipt?: number; currencySent?: boolean; cardType?: number },
): Buffer {
  return encodeFields([
    { bmp: 0x27, value: Buffer.of(resultCode) },
    ...(details.amount !== undefined ? [{ bmp: 0x04, value: bcdNumber(details.amount, 6) }] : []),
    ...(details.trace !== undefined ? [{ bmp: 0x0b, value: bcdNumber(details.trace, 3) }] : []),
    ...(details.at
      ? [
          { bmp: 0x0c, value: time(details.at) },
          { bmp: 0x0d, value: date(details.at) },
        ]
      : []),
    terminalId(id),
    ...currency(details.currencySent ?? false),
    ...(details.receipt !== undefined ? [{ bmp: 0x87, value: bcdNumber(details.receipt, 2) }] : []),
    ...(details.cardType !== undefined ? [{ bmp: 0x8a, value: Buffer.of(details.cardType) }] : []),
  ]);
}

/** The value of bitmap 60, the single totals: receipt numbers from and to, then per scheme a count (1 byte) and a total (6 BCD). */
export function singleTotals(totals: Totals): Buffer {
  const value = Buffer.concat([
    bcdNumber(totals.receiptFrom, 2),
    bcdNumber(totals.receiptTo, 2),
    ...totals.bySchemes.map(({ count, amount }) =>
      // A scheme whose refunds passed its payments has no negative in BCD: it reads 0 (the receipt shows the sign).
      Buffer.concat([Buffer.of(Math.min(count, 255)), bcdNumber(Math.max(0, amount), 6)]),
    ),
  ]);
  return value;
}

/** The end of day's status information: the total, its trace, time and date, and the single totals. */
export function endOfDayStatus(totals: Totals, trace: number, at: Date, currencySent: boolean): Buffer {
  return encodeFields([
    { bmp: 0x27, value: Buffer.of(0x00) },
    { bmp: 0x04, value: bcdNumber(Math.max(0, totals.total), 6) },
    { bmp: 0x0b, value: bcdNumber(trace, 3) },
    { bmp: 0x0c, value: time(at) },
    { bmp: 0x0d, value: date(at) },
    ...currency(currencySent),
    { bmp: 0x60, value: singleTotals(totals) },
  ]);
}
