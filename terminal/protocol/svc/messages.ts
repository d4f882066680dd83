import type { Settlement } from '../../../contracts/pos-types.js';
import { field, type FieldSpec, type MessageTable } from '../message-table.js';
import type { AskKind } from '../ask-kind.js';
import { ProtocolError } from '../../errors.js';

// INTERFACE.md §9: the messages between host and terminal. A payload is fields
// separated by "|", the first a 4-digit code; response code "00" is success.

export type Message =
  | { code: '0100' }
  | { code: '0110'; serial: string; firmware: string; batchOpen: boolean; pendingCount: number }
  | { code: '0300'; orderId: string; amount: number; currency: string }
  | { code: '0310'; rc: string }
  | { code: '0320'; orderId: string }
  | { code: '0330'; rc: string }
  | { code: '0500'; closeId?: string }
  | { code: '0150'; kind: AskKind; orderId: string }
  | { code: '0160'; kind: AskKind; orderId: string; state: AskState }
  | { code: '0510'; rc: string }
  | { code: '0250' }
  | {
      code: '0210';
      seq: number;
      orderId: string;
      amount: number;
      currency: string;
      authorizationCode: string;
      paidAt: string;
    }
  | { code: '0230'; seq: number; orderId: string; voidedAt: string }
  | ({ code: '0520'; seq: number } & Settlement)
  | { code: '0260' }
  | { code: '0270'; seq: number }
  | { code: '0280'; seq: number }
  | { code: '0990'; errorCode: string; text: string };

export type MessageCode = Message['code'];

/** What a host asked the device: to charge an order (0300) or to void it (0320). */
/**
 * What the device knows of an ask (0150/0160): `pending` (waiting for the
 * customer or the operator), `done` (charged or voided: its record is kept
 * until confirmed, or was), `declined` (refused at the terminal), `unknown`
 * (the device never got it).
 */
export type AskState = 'pending' | 'done' | 'declined' | 'unknown';

/** Records a terminal keeps until the host confirms them. */
export type RecordMessage = Extract<Message, { code: '0210' | '0230' | '0520' }>;

const { number, flag, choice } = field;
/** svc's text fields are required unless marked optional. */
const text = (name: string): FieldSpec => field.text(name, undefined, false);
const optional = (spec: FieldSpec): FieldSpec => ({ ...spec, optional: true });
const kind = choice('kind', ['charge', 'void']);
const state = choice('state', ['pending', 'done', 'declined', 'unknown']);

/** Each message's fields in order after the code, in the format of every dialect's table (../message-table.ts). */
export const LAYOUTS = {
  '0100': [],
  '0110': [text('serial'), text('firmware'), flag('batchOpen'), number('pendingCount')],
  '0300': [text('orderId'), number('amount'), text('currency')],
  '0310': [text('rc')],
  '0320': [text('orderId')],
  '0330': [text('rc')],
  /** The close's id, left off by hosts older than it. */
  '0500': [optional(text('closeId'))],
  '0150': [kind, text('orderId')],
  '0160': [kind, text('orderId'), state],
  '0510': [text('rc')],
  '0250': [],
  '0210': [
    number('seq'),
    text('orderId'),
    number('amount'),
    text('currency'),
    text('authorizationCode'),
    text('paidAt'),
  ],
  '0230': [number('seq'), text('orderId'), text('voidedAt')],
  '0520': [
    number('seq'),
    text('batchNumber'),
    number('transactionCount'),
    text('closedAt'),
    text('currencyReference'),
    text('terminal'),
    text('debitBatch'),
  ],
  '0260': [],
  '0270': [number('seq')],
  '0280': [number('seq')],
  '0990': [text('errorCode'), text('text')],
} as const satisfies Record<MessageCode, readonly FieldSpec[]> & MessageTable;

const orList = (values: readonly string[]) =>
  values.length === 1 ? values[0]! : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;

export function encodeMessage(message: Message): string {
  const values = message as Record<string, unknown>;
  const present = (LAYOUTS[message.code] as readonly FieldSpec[]).filter(
    (spec) => !spec.optional || values[spec.name] !== undefined,
  );
  const fields = present.map((spec) => {
    const value = values[spec.name];
    const written = typeof value === 'boolean' ? (value ? '1' : '0') : String(value);
    if (written.includes('|')) throw new ProtocolError('MESSAGE_INVALID', `field ${spec.name} may not contain "|"`);
    return written;
  });
  return [message.code, ...fields].join('|');
}

export function decodeMessage(payload: string): Message {
  const [code, ...fields] = payload.split('|');
  const layout = LAYOUTS[code as MessageCode] as readonly FieldSpec[] | undefined;
  if (!layout) throw new ProtocolError('MESSAGE_INVALID', `unknown message code ${JSON.stringify(code)}`);
  const required = layout.filter((spec) => !spec.optional).length;
  if (fields.length < required || fields.length > layout.length) {
    throw new ProtocolError(
      'MESSAGE_INVALID',
      `${code} takes ${required === layout.length ? layout.length : `${required} to ${layout.length}`} fields, got ${fields.length}`,
    );
  }
  const message: Record<string, unknown> = { code };
  layout.slice(0, fields.length).forEach((spec, index) => {
    const written = fields[index]!;
    const where = `${code} field ${spec.name}`;
    switch (spec.kind) {
      case 'number':
        if (!/^\d+$/.test(written))
          throw new ProtocolError('MESSAGE_INVALID', `${where} must be a whole number, got ${JSON.stringify(written)}`);
        message[spec.name] = Number(written);
        return;
      case 'flag':
        if (written !== '0' && written !== '1') throw new ProtocolError('MESSAGE_INVALID', `${where} must be 0 or 1`);
        message[spec.name] = written === '1';
        return;
      case 'choice':
        if (!spec.values!.includes(written))
          throw new ProtocolError(
            'MESSAGE_INVALID',
            `${where} must be ${orList(spec.values!)}, got ${JSON.stringify(written)}`,
          );
        message[spec.name] = written;
        return;
      default:
        message[spec.name] = written;
    }
  });
  return message as Message;
}

export const SUCCESS = '00';
