import { codeHex } from '../../protocol/zvt/apdu.js';
import { EUR } from '../../protocol/currencies.js';
import { constructed, encodeTlv, tlv } from '../../protocol/zvt/tlv.js';
import type { StoredTransaction, Totals } from './zvt-state.js';

// The receipts an emulated terminal prints, as lines of at most 24
// characters (the width real terminals use on an ECR's printer), and how
// they go to the cash register: one 06 D1 a line, or 06 D3 text blocks.

export const WIDTH = 24;
/** The attribute of a receipt's last line: 1xxx xxxx, not 80 (PA00P015 §3.5); real terminals send 81. */
export const LAST_LINE = 0x81;

const money = (minor: number) =>
  `${Math.floor(Math.abs(minor) / 100)},${String(Math.abs(minor) % 100).padStart(2, '0')}`;
const row = (left: string, right: string) =>
  `${left}${' '.repeat(Math.max(1, WIDTH - left.length - right.length))}${right}`.slice(0, WIDTH);
const stamp = (iso: string) => {
  const at = new Date(iso);
  const two = (value: number) => String(value).padStart(2, '0');
  return `${two(at.getUTCDate())}.${two(at.getUTCMonth() + 1)}.${at.getUTCFullYear()} ${two(at.getUTCHours())}:${two(at.getUTCMinutes())}:${two(at.getUTCSeconds())}`;
};

/** Every receipt's first lines: its title, the emulator, the terminal id, the time. */
const header = (title: string, terminalId: string, at: string) => [
  `** ${title} **`.slice(0, WIDTH),
  'svc-pos-sim (emulated)',
  row('Terminal-ID:', terminalId),
  stamp(at),
];

const TITLES = {
  payment: 'PAYMENT',
  refund: 'REFUND',
  reversal: 'REVERSAL',
  reservation: 'PRE-AUTHORISATION',
  booking: 'PRE-AUTH. BOOKED',
  release: 'PRE-AUTH. RELEASED',
} as const;

export function transactionReceipt(
  terminalId: string,
  transaction: Pick<StoredTransaction, 'trace' | 'amount' | 'at' | 'card'> & {
    kind: keyof typeof TITLES;
    receipt?: number;
  },
  resultCode: number,
): string[] {
  const approved = resultCode === 0;
  return [
    ...header('CUSTOMER RECEIPT', terminalId, transaction.at),
    '',
    TITLES[transaction.kind],
    row(transaction.card.name, ''),
    transaction.card.maskedPan.replace(/F$/, ''),
    row('Trace:', String(transaction.trace).padStart(6, '0')),
    ...(transaction.receipt !== undefined ? [row('Receipt:', String(transaction.receipt).padStart(4, '0'))] : []),
    row(EUR.alpha, money(transaction.amount)),
    '',
    approved ? 'APPROVED' : `DECLINED (${codeHex(resultCode)})`,
  ];
}

export function endOfDayReceipt(terminalId: string, at: string, totals: Totals): string[] {
  return [
    ...header('END OF DAY', terminalId, at),
    row('Receipts:', `${String(totals.receiptFrom).padStart(4, '0')}-${String(totals.receiptTo).padStart(4, '0')}`),
    row('', 'count       EUR'),
    ...totals.bySchemes.map(({ scheme, count, amount }) => row(scheme, `${count}  ${money(amount).padStart(10)}`)),
    '-'.repeat(WIDTH),
    row('Total', `${totals.count}  ${money(totals.total).padStart(10)}`),
  ];
}

/** A print line (06 D1): the attribute, then the text. */
export function printLineData(text: string, last: boolean): Buffer {
  return Buffer.concat([Buffer.of(last ? LAST_LINE : 0x00), Buffer.from(text, 'latin1')]);
}

/** A text block (06 D3): bitmap 06 with tag 25 holding the lines (07) and the last line's attribute (09). */
export function textBlockData(lines: readonly string[]): Buffer {
  const container = encodeTlv([
    constructed('25', [...lines.map((line) => tlv('07', line)), tlv('09', Buffer.of(LAST_LINE))]),
  ]);
  return container;
}

/** An administration receipt: a title, the terminal, the time, then the lines of what was done. */
export function adminReceipt(title: string, terminalId: string, at: string, lines: readonly string[]): string[] {
  return [...header(title, terminalId, at), '', ...lines.map((line) => line.slice(0, WIDTH))];
}

/** A line of a receipt: a label on the left, its value on the right. */
export const receiptRow = row;
