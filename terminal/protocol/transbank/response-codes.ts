// The response codes of Transbank's POS Integrado (its public reference,
// "Tabla de respuestas"): 00 approves; every other code is a rejection the
// cash register must handle, except 78-88, which are the intermediate
// status messages a sale sends while the customer works the terminal.
// The meanings are ours, in English, for the logs a technician reads.

import type { RequestCode } from './messages.js';

export const APPROVED = '00';

const meanings: Record<string, string> = {
  '00': 'approved',
  '01': 'rejected',
  '02': 'the authoriser did not answer',
  '03': 'connection failed',
  '04': 'the transaction was already refunded',
  '05': 'no such transaction to refund',
  '06': 'card not supported',
  '07': 'cancelled on the terminal',
  '08': 'a debit sale cannot be refunded',
  '09': 'card read error',
  '10': 'amount below the minimum',
  '11': 'no sale',
  '12': 'transaction not supported',
  '13': 'the day must be closed first',
  '14': 'no dial tone',
  '15': 'BITMAP.DAT missing: load it',
  '16': 'the authoriser answered in a bad format',
  '17': 'the last 4 digits do not match',
  '18': 'invalid menu',
  '19': 'card distribution error',
  '20': 'invalid card',
  '21': 'refund not allowed',
  '22': 'timeout',
  '24': 'printer out of paper',
  '25': 'invalid date',
  '26': 'keys must be loaded first',
  '27': 'the terminal must be updated',
  '60': 'wrong number of instalments',
  '61': 'the request could not be built',
  '62': 'internal PIN pad problem',
  '65': "the authoriser's answer could not be processed",
  '67': 'too many sales: the day must be closed',
  '68': 'amount entry failed',
  '70': 'the ticket field is badly formed (6 characters at most)',
  '71': 'print field too long',
  '72': 'the amount must be more than 0',
  '73': 'terminal id not configured',
  '74': 'the day must be closed',
  '75': 'no cards configured for the merchant',
  '76': 'too many sales: the day must be closed',
  '77': 'the day must be closed',
  '78': 'waiting for the card',
  '79': 'asking the customer to confirm the amount',
  '80': 'instalment selection',
  '81': 'asking for the PIN',
  '82': 'sending the transaction to Transbank',
  '83': 'credit or debit menu',
  '84': 'present the card',
  '85': 'instalment selection',
  '86': 'instalment entry',
  '87': 'instalment confirmation',
  '88': 'wrong number of instalments',
  '93': 'declined',
  '94': 'the answer could not be processed',
  '95': 'rate printing error',
};

/** What each request does, for a meaning that depends on it. */
const requestKinds: Record<RequestCode, string> = {
  '0100': 'poll',
  '0800': 'load keys',
  '0300': 'change to normal',
  '0200': 'sale',
  '0270': 'sale',
  '0250': 'last sale',
  '0280': 'last sale',
  '1200': 'refund',
  '0500': 'close',
  '0700': 'totals',
  '0260': 'sales detail',
  '0290': 'sales detail',
};

// The reference has one table for every message, but a code only means what
// it says in answer to some: 04, 05, 08 and 21 speak of a refund, and 11 is
// "no sale" where a sale is looked for.
const refundCodes = new Set(['04', '05', '08', '21']);
const meaningsFor: Record<string, Record<string, string>> = {
  'last sale': { '11': 'no sale since the day was closed' },
  refund: { '11': 'no sale with that operation number' },
};

/**
 * What a response code means in answer to `request`, for a log line:
 * `05 (no such transaction to refund)` for a refund; for a sale, a
 * refund's code is a refusal that says nothing more.
 */
export function describeResponseCode(code: string, request: RequestCode): string {
  const kind = requestKinds[request];
  const meaning = meaningsFor[kind]?.[code] ?? meanings[code];
  if (meaning === undefined) return `${code} (not in the reference's table)`;
  if (refundCodes.has(code) && kind !== 'refund')
    return `${code} (refused; the code is a refund's, where it means: ${meaning})`;
  return `${code} (${meaning})`;
}

export const isKnownResponseCode = (code: string): boolean => code in meanings;

/** The status a sale reports while it runs, in order, when the cash register asks for them. */
export const INTERMEDIATE_CODES = ['78', '79', '80', '81', '82'] as const;

/**
 * Rejections a cash register must handle, which the emulator can be told
 * to answer: a sale refused (01, 02, 07, 09, 11, 13, 74, 77, 26…), a refund
 * refused (04, 05, 08).
 */
export const REJECTION_CODES = [
  '01',
  '02',
  '03',
  '04',
  '05',
  '06',
  '07',
  '08',
  '09',
  '10',
  '11',
  '12',
  '13',
  '17',
  '20',
  '21',
  '22',
  '24',
  '26',
  '27',
  '67',
  '74',
  '76',
  '77',
  '93',
] as const;
