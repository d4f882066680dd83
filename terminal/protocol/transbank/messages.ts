// The messages of Transbank's POS Integrado, field by field, as its public
// reference lays them out (referencia/posintegrado): a payload is a 4-digit
// command and fields separated by "|". The same tables encode and decode,
// for the emulated POS (requests in, responses out) and for the bridge
// acting as the cash register (requests out, responses in).
//
// The table is in the format every dialect's is (../message-table.ts):
// `number`, `digits`, `text` (printable ASCII without "|"), `flag` ("1" or
// "0"), `reserved` (sent empty or as a filler, never read).

import { field, type FieldSpec, type MessageTable } from '../message-table.js';
import { ProtocolError } from '../../errors.js';

export type { FieldSpec };

// Transbank's fields are text, limited in characters; a text field may be empty unless said otherwise.
const number = (name: string, max: number, optional = false) => field.number(name, max, optional);
const digits = field.digits;
const text = (name: string, max: number, optional = true) => field.text(name, max, optional);
const flag = field.flag;
const reserved = field.reserved;

const head = [digits('responseCode', 2), digits('commerceCode', 12), text('terminalId', 8, false)];

/** The card and the moment of a sale, in the same order in a sale's answer and in a detail line. */
const cardAndTime = [
  text('cardType', 2),
  text('accountingDate', 6),
  text('accountNumber', 19),
  text('cardBrand', 2),
  text('realDate', 8),
  text('realTime', 6),
  digits('employeeId', 4, true),
  number('tip', 9, true),
];

/** What a sale answers, and the last sale: the same layout (0210, 0260). */
const saleFields = [
  ...head,
  text('ticket', 6),
  text('authorizationCode', 6),
  number('amount', 9),
  number('sharesNumber', 2, true),
  number('sharesAmount', 9, true),
  digits('last4Digits', 4, true),
  digits('operationNumber', 6, true),
  ...cardAndTime,
];

/** One sale of a sales detail, in the order a detail line has it (0261, 0291). */
const detailFields = [
  ...head,
  text('ticket', 6),
  text('authorizationCode', 6),
  number('amount', 9, true),
  digits('last4Digits', 4, true),
  digits('operationNumber', 6, true),
  ...cardAndTime,
  number('sharesAmount', 9, true),
  number('sharesNumber', 2, true),
];

/** Requests, cash register to POS. */
export const REQUEST_LAYOUTS = {
  /** Poll: is a POS there? Answered with an ACK only. */
  '0100': [],
  /** Load keys. */
  '0800': [],
  /** Change to normal POS (leaves integrated mode). Answered with an ACK only. */
  '0300': [],
  /** Sale: amount in whole pesos, ticket, two empty fields, whether to send the intermediate status messages. */
  '0200': [number('amount', 9), text('ticket', 6, false), reserved('empty1'), reserved('empty2'), flag('sendStatus')],
  /** Multicode sale: as a sale, a filler, and the commerce code of the provider (0 when not multicode). */
  '0270': [
    number('amount', 9),
    text('ticket', 6, false),
    reserved('empty'),
    reserved('filler'),
    flag('sendStatus'),
    digits('commerceProvider', 12, true),
  ],
  /** Last sale: the POS answers the last sale it made, as 0260. */
  '0250': [],
  /** Refund of a sale, by its operation number. */
  '1200': [digits('operationNumber', 6)],
  /** Close of the day. */
  '0500': [],
  /** Totals of the open batch. */
  '0700': [],
  /** Sales detail: 1 sends every sale to the cash register (one 0261 each), 0 prints it on the POS. */
  '0260': [flag('sendToRegister')],
  /** Multicode last sale: as a last sale, and whether the voucher comes in the answer (1) or not (0). Answered as 0281. */
  '0280': [flag('voucher')],
  /** Multicode sales detail: as a sales detail (one 0291 a sale, then the end), with each sale's change and provider. */
  '0290': [flag('sendToRegister')],
} as const satisfies MessageTable;

/** Responses, POS to cash register. */
export const RESPONSE_LAYOUTS = {
  '0810': head,
  '0210': saleFields,
  '0260': saleFields,
  /** A multicode sale's answer: a sale's fields, a filler, the change, the provider's commerce code. */
  '0271': [...saleFields, reserved('filler'), number('change', 5, true), digits('commerceProvider', 12, true)],
  '1210': [...head, text('authorizationCode', 6), digits('operationNumber', 6, true)],
  '0510': head,
  '0710': [digits('responseCode', 2), number('transactionCount', 6), number('total', 12)],
  /** One sale of the detail; the detail ends with one whose fields after the terminal are empty. */
  '0261': detailFields,
  /** The multicode last sale: a sale's fields, the voucher's text (40-character lines run together, empty unless asked), the change, the provider's commerce code. */
  '0281': [...saleFields, text('voucher', 4000), number('change', 5, true), digits('commerceProvider', 12, true)],
  /** One sale of the multicode detail: a detail line, the change, the provider's commerce code; the end as the detail's. */
  '0291': [...detailFields, number('change', 5, true), digits('commerceProvider', 12, true)],
  /** An intermediate status of a running sale (78-82). */
  '0900': [digits('responseCode', 2)],
} as const satisfies MessageTable;

export type RequestCode = keyof typeof REQUEST_LAYOUTS;
export type ResponseCode = keyof typeof RESPONSE_LAYOUTS;

export type FieldValue = string | number | boolean | null;
export type Fields = Record<string, FieldValue>;

/** A message as data: its command and its fields by name. */
export interface TransbankMessage<C extends string = string> {
  code: C;
  fields: Fields;
}

export function encodeRequest(message: TransbankMessage<RequestCode>): string {
  return encode(message, REQUEST_LAYOUTS[message.code]);
}

export function encodeResponse(message: TransbankMessage<ResponseCode>): string {
  return encode(message, RESPONSE_LAYOUTS[message.code]);
}

export function decodeRequest(payload: string): TransbankMessage<RequestCode> {
  return decode(payload, REQUEST_LAYOUTS) as TransbankMessage<RequestCode>;
}

export function decodeResponse(payload: string): TransbankMessage<ResponseCode> {
  return decode(payload, RESPONSE_LAYOUTS) as TransbankMessage<ResponseCode>;
}

/**
 * The command and its fields in order, written as the reference writes
 * each message: some end with a separator (`1200|10|`, a sale's answer),
 * others do not (`0510|00|…|terminal`, `0710|00|1|2000`), and a few have
 * one fixed form (`0100`, `0250|`, `0500||`).
 */
function encode(message: TransbankMessage, layout: readonly FieldSpec[]): string {
  const fixed = FIXED_FORMS[message.code];
  if (fixed !== undefined) return fixed;
  const written = [
    message.code,
    ...layout.map((spec) => encodeField(spec, message.fields[spec.name] ?? null, message.code)),
  ].join('|');
  return ENDS_WITH_SEPARATOR.has(message.code) ? `${written}|` : written;
}

const FIXED_FORMS: Record<string, string> = {
  '0100': '0100',
  '0800': '0800',
  '0300': '0300',
  '0250': '0250|',
  '0500': '0500||',
  '0700': '0700||',
};
const ENDS_WITH_SEPARATOR = new Set(['0200', '0270', '1200', '0260', '0210', '0271', '0900']);

function encodeField(spec: FieldSpec, value: FieldValue, code: string): string {
  const where = `${code} field ${spec.name}`;
  if (spec.kind === 'reserved') return '';
  if (value === null || value === '') {
    if (!spec.optional) throw new ProtocolError('MESSAGE_INVALID', `${where} is required`, { field: spec.name });
    return '';
  }
  const written = spec.kind === 'flag' ? (value === true || value === '1' ? '1' : '0') : String(value);
  check(spec, written, where);
  return written;
}

/**
 * Reads a payload by its command's layout. What different senders write
 * differently is accepted: a trailing separator or none (the official SDK
 * sends `0200|…|0`, the reference `0200|…|0|`), a filler in a reserved
 * field, and optional fields left off the end.
 */
function decode(payload: string, layouts: Record<string, readonly FieldSpec[]>): TransbankMessage {
  // split always gives at least one part: the command.
  const [code, ...parts] = payload.split('|') as [string, ...string[]];
  const layout = layouts[code];
  if (!layout) throw new ProtocolError('MESSAGE_INVALID', `unknown command ${JSON.stringify(code)}`);
  const extra = parts.slice(layout.length);
  if (extra.some((part) => part !== ''))
    throw new ProtocolError('MESSAGE_INVALID', `${code} takes ${layout.length} fields, got ${parts.length}`);
  const fields: Fields = {};
  layout.forEach((spec, index) => {
    if (spec.kind === 'reserved') return;
    const written = parts[index] ?? '';
    const where = `${code} field ${spec.name}`;
    if (written === '') {
      if (!spec.optional) throw new ProtocolError('MESSAGE_INVALID', `${where} is required`, { field: spec.name });
      fields[spec.name] = null;
      return;
    }
    check(spec, written, where);
    fields[spec.name] = spec.kind === 'number' ? Number(written) : spec.kind === 'flag' ? written === '1' : written;
  });
  return { code, fields };
}

function check(spec: FieldSpec, written: string, where: string): void {
  if (written.length > (spec.max ?? Infinity))
    throw new ProtocolError('MESSAGE_INVALID', `${where} takes at most ${spec.max} characters, got ${written.length}`, {
      field: spec.name,
    });
  if ((spec.kind === 'number' || spec.kind === 'digits') && !/^\d+$/.test(written))
    throw new ProtocolError('MESSAGE_INVALID', `${where} must be digits, got ${JSON.stringify(written)}`, {
      field: spec.name,
    });
  if (spec.kind === 'flag' && written !== '0' && written !== '1')
    throw new ProtocolError('MESSAGE_INVALID', `${where} must be 1 or 0, got ${JSON.stringify(written)}`, {
      field: spec.name,
    });
  // Stryker disable next-line ConditionalExpression: digits and flags, already checked above, are printable ASCII without "|" too (the kind test says which rule the message names)
  if (spec.kind === 'text' && !/^[\x20-\x7b\x7d\x7e]*$/.test(written))
    throw new ProtocolError('MESSAGE_INVALID', `${where} must be printable ASCII without "|"`, { field: spec.name });
}
