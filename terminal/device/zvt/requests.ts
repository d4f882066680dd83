import type { Apdu } from '../../protocol/zvt/apdu.js';
import { bcdValue } from '../../protocol/zvt/bcd.js';
import { decodeFields, fieldOf, type Field } from '../../protocol/zvt/bitmaps.js';
import { COMMANDS, controlOf, EURO } from '../../protocol/zvt/messages.js';
import { findTlv } from '../../protocol/zvt/tlv.js';

// The cash register's commands as an emulated terminal reads them
// (PA00P015 §2): fixed fields first where the command has them (the
// password, a registration's config byte and currency), then bitmaps. A
// bitmap the terminal does not know throws (84 83); a field it needs that
// is missing throws too (84 9A).

export type Request =
  | { kind: 'registration'; configByte: number; currency?: number; tlv?: { textBlocks: boolean } }
  | { kind: 'payment' | 'refund'; amount: number; currencySent: boolean; maxStatusInfos?: number }
  | { kind: 'reversal'; receipt: number; amount?: number; currencySent: boolean }
  | { kind: 'end-of-day'; currencySent: boolean }
  | { kind: 'repeat-receipt'; serviceByte: number }
  | { kind: 'status-enquiry'; serviceByte: number }
  | { kind: 'log-off' }
  | { kind: 'abort' }
  | { kind: 'wrong-currency' }
  | { kind: 'unknown' };

export class RequestError extends Error {
  override readonly name = 'RequestError';
}

function required(fields: Field[], bmp: number, what: string): Buffer {
  const value = fieldOf(fields, bmp);
  if (!value) throw new RequestError(`${what} (bitmap ${bmp.toString(16).padStart(2, '0')}) is missing`);
  return value;
}

/** The currency a command names, checked: only euro is taken (PA00P015 §1.4). */
function currencyOf(fields: Field[]): { sent: boolean; taken: boolean } {
  const value = fieldOf(fields, 0x49);
  return { sent: value !== undefined, taken: value === undefined || bcdValue(value) === EURO };
}

/** The command, read; the password (when it carries one) has been checked by then. */
export function parseRequest(message: Apdu): Request {
  const { data } = message;
  switch (controlOf(message)) {
    case COMMANDS.registration: {
      if (data.length < 4) throw new RequestError('a registration carries a password and a config byte');
      if (data.length === 5) throw new RequestError('a currency code is 2 bytes');
      const fields = data.length > 6 ? decodeFields(data, 6) : [];
      const container = fields.find((field) => field.bmp === 0x06)?.tlv;
      const permitted = findTlv(container, '26')?.children ?? [];
      return {
        kind: 'registration',
        configByte: data[3]!,
        ...(data.length >= 6 ? { currency: bcdValue(data.subarray(4, 6)) } : {}),
        ...(container
          ? { tlv: { textBlocks: permitted.some((object) => object.value.equals(Buffer.of(0x06, 0xd3))) } }
          : {}),
      };
    }
    case COMMANDS.authorisation:
    case COMMANDS.refund: {
      const refund = controlOf(message) === COMMANDS.refund;
      const fields = decodeFields(data, refund ? 3 : 0);
      const currency = currencyOf(fields);
      if (!currency.taken) return { kind: 'wrong-currency' };
      const maxStatusInfos = fieldOf(fields, 0x02);
      return {
        kind: refund ? 'refund' : 'payment',
        amount: bcdValue(required(fields, 0x04, 'the amount')),
        currencySent: currency.sent,
        ...(maxStatusInfos ? { maxStatusInfos: maxStatusInfos[0]! } : {}),
      };
    }
    case COMMANDS.reversal: {
      const fields = decodeFields(data, 3);
      const currency = currencyOf(fields);
      if (!currency.taken) return { kind: 'wrong-currency' };
      const amount = fieldOf(fields, 0x04);
      return {
        kind: 'reversal',
        receipt: bcdValue(required(fields, 0x87, 'the receipt number')),
        ...(amount ? { amount: bcdValue(amount) } : {}),
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
    case COMMANDS.logOff:
      return { kind: 'log-off' };
    case COMMANDS.abortFromEcr:
      return { kind: 'abort' };
    default:
      return { kind: 'unknown' };
  }
}
