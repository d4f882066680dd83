import type { Apdu } from '../../protocol/zvt/apdu.js';
import { bcdValue, unpackBcd } from '../../protocol/zvt/bcd.js';
import { decodeFields, fieldOf, type Field } from '../../protocol/zvt/bitmaps.js';
import { COMMANDS, controlOf, EURO } from '../../protocol/zvt/messages.js';
import { findTlv } from '../../protocol/zvt/tlv.js';
import { ProtocolError } from '../../errors.js';

// The cash register's commands as an emulated terminal reads them
// (PA00P015 §2): fixed fields first where the command has them (the
// password, a registration's config byte and currency, a read card's
// time-out), then bitmaps. A bitmap the terminal does not know throws
// (84 83); a field it needs that is missing throws too (84 9A).

/** What every command that moves money carries besides its amount. */
interface Money {
  currencySent: boolean;
}

/** Bitmaps 01 and 02 of a command whose status information may wait for the issue of goods (§2.2.1). */
export interface IssueOfGoods {
  /** Bitmap 01: seconds the terminal waits for the answer to its status information. */
  timeoutSeconds?: number;
  /** Bitmap 02: how often the cash register may answer 84 9C. */
  maxStatusInfos?: number;
}

export type Request =
  | {
      kind: 'registration';
      configByte: number;
      currency?: number;
      tlv?: { textBlocks: boolean; lineWidth?: number };
    }
  | ({ kind: 'payment' | 'refund' | 'reservation'; amount: number } & Money & IssueOfGoods)
  | ({ kind: 'reversal'; receipt: number; amount?: number } & Money)
  | ({ kind: 'partial-reversal'; receipt: number; unused: number } & Money)
  | ({ kind: 'book-total'; receipt: number; amount?: number } & Money)
  | ({ kind: 'reservation-reversal'; receipt: number } & Money)
  | { kind: 'open-reservations' }
  | { kind: 'end-of-day'; currencySent: boolean }
  | { kind: 'repeat-receipt'; serviceByte: number }
  | { kind: 'status-enquiry'; serviceByte: number }
  | { kind: 'diagnosis'; diagnosisType: number }
  | { kind: 'initialisation' }
  | { kind: 'read-card'; timeoutSeconds?: number }
  | { kind: 'reset' }
  | { kind: 'print-configuration' }
  | { kind: 'set-terminal-id'; terminalId?: string }
  | { kind: 'display-text'; lines: string[]; durationSeconds?: number }
  | { kind: 'log-off' }
  | { kind: 'abort' }
  | { kind: 'wrong-currency' }
  | { kind: 'unknown'; why?: string };

/** The amount a pre-authorisation reserves when the cash register sends none (§2.8: the terminal's default): 100.00. */
export const DEFAULT_RESERVATION = 10_000;
/** Tag 1B of a diagnosis: extended diagnosis when none is sent (§ TLV tag 1B). */
export const EXTENDED_DIAGNOSIS = 0x02;

function required(fields: Field[], bmp: number, what: string): Buffer {
  const value = fieldOf(fields, bmp);
  if (!value)
    throw new ProtocolError('REQUEST_INVALID', `${what} (bitmap ${bmp.toString(16).padStart(2, '0')}) is missing`);
  return value;
}

/** The currency a command names, checked: only euro is taken (PA00P015 §1.4). */
function currencyOf(fields: Field[]): { sent: boolean; taken: boolean } {
  const value = fieldOf(fields, 0x49);
  return { sent: value !== undefined, taken: value === undefined || bcdValue(value) === EURO };
}

const optionalNumber = (fields: Field[], bmp: number) => {
  const value = fieldOf(fields, bmp);
  return value ? bcdValue(value) : undefined;
};

function issueOfGoods(fields: Field[]): IssueOfGoods {
  const timeout = fieldOf(fields, 0x01);
  const maxStatusInfos = fieldOf(fields, 0x02);
  return {
    ...(timeout ? { timeoutSeconds: timeout[0]! } : {}),
    ...(maxStatusInfos ? { maxStatusInfos: maxStatusInfos[0]! } : {}),
  };
}

function registration(data: Buffer): Request {
  if (data.length < 4)
    throw new ProtocolError('REQUEST_INVALID', 'a registration carries a password and a config byte');
  if (data.length === 5) throw new ProtocolError('REQUEST_INVALID', 'a currency code is 2 bytes');
  const fields = data.length > 6 ? decodeFields(data, 6) : [];
  const container = fields.find((field) => field.bmp === 0x06)?.tlv;
  const permitted = findTlv(container, '26')?.children ?? [];
  const width = findTlv(container, '12')?.value;
  return {
    kind: 'registration',
    configByte: data[3]!,
    ...(data.length >= 6 ? { currency: bcdValue(data.subarray(4, 6)) } : {}),
    ...(container
      ? {
          tlv: {
            textBlocks: permitted.some((object) => object.value.equals(Buffer.of(0x06, 0xd3))),
            ...(width?.length === 1 ? { lineWidth: bcdValue(width) } : {}),
          },
        }
      : {}),
  };
}

/** 06 01, 06 31 (after its password) and 06 22: the amount and what the issue of goods may take. */
function payment(kind: 'payment' | 'refund' | 'reservation', fields: Field[]): Request {
  const currency = currencyOf(fields);
  if (!currency.taken) return { kind: 'wrong-currency' };
  // A trace number (0B, or tag 1F2B) in 06 22 asks to extend a reservation (§2.8): not emulated.
  const container = fields.find((field) => field.bmp === 0x06)?.tlv;
  if (kind === 'reservation' && (fieldOf(fields, 0x0b) || findTlv(container, '1F2B')))
    return { kind: 'unknown', why: 'a reservation extension (a trace number in 06 22) is not emulated' };
  const amount = fieldOf(fields, 0x04);
  return {
    kind,
    amount:
      amount !== undefined
        ? bcdValue(amount)
        : kind === 'reservation'
          ? DEFAULT_RESERVATION
          : bcdValue(required(fields, 0x04, 'the amount')),
    currencySent: currency.sent,
    ...issueOfGoods(fields),
  };
}

/** 06 23: the partial reversal of a reservation, or (87 FF FF) the enquiry for open ones (§2.10, §2.10.1). */
function partialReversal(fields: Field[]): Request {
  const receipt = required(fields, 0x87, 'the receipt number');
  if (receipt.equals(Buffer.of(0xff, 0xff))) return { kind: 'open-reservations' };
  const currency = currencyOf(fields);
  if (!currency.taken) return { kind: 'wrong-currency' };
  return {
    kind: 'partial-reversal',
    receipt: bcdValue(receipt),
    unused: optionalNumber(fields, 0x04) ?? 0,
    currencySent: currency.sent,
  };
}

/** 06 24 and 06 25: a reservation named by its receipt number. */
function byReservation(kind: 'book-total' | 'reservation-reversal', fields: Field[]): Request {
  const currency = currencyOf(fields);
  if (!currency.taken) return { kind: 'wrong-currency' };
  const receipt = bcdValue(required(fields, 0x87, 'the receipt number'));
  if (kind === 'reservation-reversal') return { kind, receipt, currencySent: currency.sent };
  const amount = optionalNumber(fields, 0x04);
  return { kind, receipt, ...(amount !== undefined ? { amount } : {}), currencySent: currency.sent };
}

/** 06 C0: a positional time-out, then bitmaps 19, FC and 06 (§2.21). */
function readCard(data: Buffer): Request {
  if (data.length === 0) return { kind: 'read-card' };
  decodeFields(data, 1); // every bitmap known and whole; the emulated reader takes any card type
  return { kind: 'read-card', timeoutSeconds: data[0]! };
}

function displayText(fields: Field[]): Request {
  const lines: string[] = [];
  for (let bmp = 0xf1; bmp <= 0xf8; bmp++) lines.push(fieldOf(fields, bmp)?.toString('latin1') ?? '');
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const duration = fieldOf(fields, 0xf0);
  return { kind: 'display-text', lines, ...(duration ? { durationSeconds: duration[0]! } : {}) };
}

/** The command, read; the password (when it carries one) has been checked by then. */
export function parseRequest(message: Apdu): Request {
  const { data } = message;
  switch (controlOf(message)) {
    case COMMANDS.registration:
      return registration(data);
    case COMMANDS.authorisation:
      return payment('payment', decodeFields(data));
    case COMMANDS.refund:
      return payment('refund', decodeFields(data, 3));
    case COMMANDS.reservation:
      return payment('reservation', decodeFields(data));
    case COMMANDS.partialReversal:
      return partialReversal(decodeFields(data));
    case COMMANDS.bookTotal:
      return byReservation('book-total', decodeFields(data));
    case COMMANDS.reservationReversal:
      return byReservation('reservation-reversal', decodeFields(data));
    case COMMANDS.reversal: {
      const fields = decodeFields(data, 3);
      const currency = currencyOf(fields);
      if (!currency.taken) return { kind: 'wrong-currency' };
      const amount = optionalNumber(fields, 0x04);
      return {
        kind: 'reversal',
        receipt: bcdValue(required(fields, 0x87, 'the receipt number')),
        ...(amount !== undefined ? { amount } : {}),
        currencySent: currency.sent,
      };
    }
    case COMMANDS.endOfDay:
      return { kind: 'end-of-day', currencySent: currencyOf(decodeFields(data, 3)).sent };
    case COMMANDS.repeatReceipt:
      return { kind: 'repeat-receipt', serviceByte: fieldOf(decodeFields(data, 3), 0x03)?.[0] ?? 0 };
    case COMMANDS.statusEnquiry:
      return {
        kind: 'status-enquiry',
        serviceByte: data.length > 3 ? (fieldOf(decodeFields(data, 3), 0x03)?.[0] ?? 0) : 0,
      };
    case COMMANDS.diagnosis: {
      const container = decodeFields(data).find((field) => field.bmp === 0x06)?.tlv;
      const type = findTlv(container, '1B')?.value;
      return {
        kind: 'diagnosis',
        diagnosisType: type && type.length > 0 ? type[type.length - 1]! : EXTENDED_DIAGNOSIS,
      };
    }
    case COMMANDS.initialisation:
      return { kind: 'initialisation' };
    case COMMANDS.readCard:
      return readCard(data);
    case COMMANDS.reset:
      return { kind: 'reset' };
    case COMMANDS.printConfiguration:
      return { kind: 'print-configuration' };
    case COMMANDS.setTerminalId: {
      const id = fieldOf(decodeFields(data, 3), 0x29);
      return { kind: 'set-terminal-id', ...(id ? { terminalId: unpackBcd(id) } : {}) };
    }
    case COMMANDS.displayText:
      return displayText(decodeFields(data));
    case COMMANDS.logOff:
      return { kind: 'log-off' };
    case COMMANDS.abortFromEcr:
      return { kind: 'abort' };
    default:
      return { kind: 'unknown' };
  }
}
