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
  | {
      code: '0520';
      seq: number;
      batchNumber: string;
      transactionCount: number;
      closedAt: string;
      currencyReference: string;
      terminal: string;
      debitBatch: string;
    }
  | { code: '0260' }
  | { code: '0270'; seq: number }
  | { code: '0280'; seq: number }
  | { code: '0990'; errorCode: string; text: string };

export type MessageCode = Message['code'];

/** What a host asked the device: to charge an order (0300) or to void it (0320). */
export type AskKind = 'charge' | 'void';
/**
 * What the device knows of an ask (0150/0160): `pending` (waiting for the
 * customer or the operator), `done` (charged or voided: its record is kept
 * until confirmed, or was), `declined` (refused at the terminal), `unknown`
 * (the device never got it).
 */
export type AskState = 'pending' | 'done' | 'declined' | 'unknown';
const askKinds = new Set<string>(['charge', 'void']);
const askStates = new Set<string>(['pending', 'done', 'declined', 'unknown']);

/** Records a terminal keeps until the host confirms them. */
export type RecordMessage = Extract<Message, { code: '0210' | '0230' | '0520' }>;

export class MessageError extends Error {
  override readonly name = 'MessageError';
  readonly code = 'MESSAGE_INVALID';
}

// Field names of each message, in order after the code; a trailing "?" marks a field an older sender leaves off.
const layouts: Record<MessageCode, string[]> = {
  '0100': [],
  '0110': ['serial', 'firmware', 'batchOpen', 'pendingCount'],
  '0300': ['orderId', 'amount', 'currency'],
  '0310': ['rc'],
  '0320': ['orderId'],
  '0330': ['rc'],
  '0500': ['closeId?'],
  '0150': ['kind', 'orderId'],
  '0160': ['kind', 'orderId', 'state'],
  '0510': ['rc'],
  '0250': [],
  '0210': ['seq', 'orderId', 'amount', 'currency', 'authorizationCode', 'paidAt'],
  '0230': ['seq', 'orderId', 'voidedAt'],
  '0520': ['seq', 'batchNumber', 'transactionCount', 'closedAt', 'currencyReference', 'terminal', 'debitBatch'],
  '0260': [],
  '0270': ['seq'],
  '0280': ['seq'],
  '0990': ['errorCode', 'text'],
};

const integers = new Set(['pendingCount', 'amount', 'seq', 'transactionCount']);

const fieldName = (spec: string) => spec.replace(/\?$/, '');

export function encodeMessage(message: Message): string {
  const present = layouts[message.code].filter(
    (spec) => !spec.endsWith('?') || (message as Record<string, unknown>)[fieldName(spec)] !== undefined,
  );
  const fields = present.map((spec) => {
    const name = fieldName(spec);
    const value = (message as Record<string, unknown>)[name];
    const text = typeof value === 'boolean' ? (value ? '1' : '0') : String(value);
    if (text.includes('|')) throw new MessageError(`field ${name} may not contain "|"`);
    return text;
  });
  return [message.code, ...fields].join('|');
}

export function decodeMessage(payload: string): Message {
  const [code, ...fields] = payload.split('|');
  const layout = layouts[code as MessageCode];
  if (!layout) throw new MessageError(`unknown message code ${JSON.stringify(code)}`);
  const required = layout.filter((spec) => !spec.endsWith('?')).length;
  if (fields.length < required || fields.length > layout.length) {
    throw new MessageError(
      `${code} takes ${required === layout.length ? layout.length : `${required} to ${layout.length}`} fields, got ${fields.length}`,
    );
  }
  const message: Record<string, unknown> = { code };
  layout.slice(0, fields.length).forEach((spec, index) => {
    const name = fieldName(spec);
    const text = fields[index]!;
    if (integers.has(name)) {
      if (!/^\d+$/.test(text))
        throw new MessageError(`${code} field ${name} must be a whole number, got ${JSON.stringify(text)}`);
      message[name] = Number(text);
    } else if (name === 'batchOpen') {
      if (text !== '0' && text !== '1') throw new MessageError(`${code} field batchOpen must be 0 or 1`);
      message[name] = text === '1';
    } else if (name === 'kind' && !askKinds.has(text)) {
      throw new MessageError(`${code} field kind must be charge or void, got ${JSON.stringify(text)}`);
    } else if (name === 'state' && !askStates.has(text)) {
      throw new MessageError(
        `${code} field state must be pending, done, declined or unknown, got ${JSON.stringify(text)}`,
      );
    } else {
      message[name] = text;
    }
  });
  return message as Message;
}

export const SUCCESS = '00';
