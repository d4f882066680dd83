import { bcdValue } from '../../protocol/zvt/bcd.js';
import { fieldOf, type Field } from '../../protocol/zvt/bitmaps.js';

// What the bridge reads in a terminal's status information (04 0F,
// PA00P015 §3.1): the result, the money, the numbers that identify the
// transaction, and for an end of day the count of its single totals.

export interface StatusReading {
  resultCode: number;
  amount?: number;
  trace?: number;
  receipt?: number;
  /** A reversal's: the trace number of the payment it reversed (bitmap 37). */
  originalTrace?: number;
  /** The authorisation attribute (bitmap 3B), its padding taken off. */
  aid?: string;
  /** An end of day's single totals (bitmap 60): transactions counted over every scheme. */
  endOfDay?: { count: number; total: number };
}

/** The count in the single totals: after the two receipt numbers, per scheme a count byte and 6 BCD bytes. */
function totalsCount(value: Buffer): number {
  let count = 0;
  for (let offset = 4; offset + 7 <= value.length; offset += 7) count += value[offset]!;
  return count;
}

export function readStatus(fields: readonly Field[]): StatusReading {
  const number = (bmp: number) => {
    const value = fieldOf(fields, bmp);
    return value ? bcdValue(value) : undefined;
  };
  const aid = fieldOf(fields, 0x3b)
    ?.toString('latin1')
    .replace(/[\0 ]+$/, '');
  const totals = fieldOf(fields, 0x60);
  const reading: StatusReading = { resultCode: fieldOf(fields, 0x27)?.[0] ?? 0x00 };
  const amount = number(0x04);
  const trace = number(0x0b);
  const receipt = number(0x87);
  const originalTrace = number(0x37);
  if (amount !== undefined) reading.amount = amount;
  if (trace !== undefined) reading.trace = trace;
  if (receipt !== undefined) reading.receipt = receipt;
  if (originalTrace !== undefined) reading.originalTrace = originalTrace;
  if (aid) reading.aid = aid;
  if (totals) reading.endOfDay = { count: totalsCount(totals), total: amount ?? 0 };
  return reading;
}

/** The authorization code the server is told: bitmap 3B when the terminal sent one, else its trace and receipt numbers. */
export function authorizationOf(reading: StatusReading): string {
  if (reading.aid) return reading.aid;
  return `T${String(reading.trace ?? 0).padStart(6, '0')}R${String(reading.receipt ?? 0).padStart(4, '0')}`;
}
