import { createHash } from 'node:crypto';
import type { Settlement } from '../../contracts/pos-types.js';

// The money records a bridge delivers to the server, whatever dialect made
// them: a payment (an order charged: commit), a void (an order voided:
// invalidation commit) and a settlement (a batch closed). Each has the
// sequence number its maker gave it (the device's, or the bridge's journal's).

export interface PaymentRecord {
  kind: 'payment';
  seq: number;
  orderId: string;
  /** Minor units. */
  amount: number;
  currency: string;
  authorizationCode: string;
  paidAt: string;
}

export interface VoidRecord {
  kind: 'void';
  seq: number;
  orderId: string;
  voidedAt: string;
}

/** The six settlement fields of the interface, and the record's number. */
export interface BatchCloseRecord extends Settlement {
  kind: 'settlement';
  seq: number;
}

export type MoneyRecord = PaymentRecord | VoidRecord | BatchCloseRecord;

/** One line for the log. */
export function describeRecord(record: MoneyRecord): string {
  switch (record.kind) {
    case 'payment':
      return `payment ${record.orderId} ${record.amount} ${record.currency} auth ${record.authorizationCode}`;
    case 'void':
      return `void ${record.orderId}`;
    case 'settlement':
      return `settlement of batch ${record.batchNumber}`;
  }
}

/** Every field, in a fixed order: what the record's key is a digest of. */
function fieldsOf(record: MoneyRecord): string[] {
  switch (record.kind) {
    case 'payment':
      return [record.orderId, String(record.amount), record.currency, record.authorizationCode, record.paidAt];
    case 'void':
      return [record.orderId, record.voidedAt];
    case 'settlement':
      return [
        record.batchNumber,
        String(record.transactionCount),
        record.closedAt,
        record.currencyReference,
        record.terminal,
        record.debitBatch,
      ];
  }
}

/** A record's identity: its kind and number, and a digest of its fields (a device restarted without its journal reuses numbers). */
export function recordKey(record: MoneyRecord): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([record.kind, record.seq, ...fieldsOf(record)]))
    .digest('hex')
    .slice(0, 8);
  return `${record.kind}-${record.seq}-${digest}`;
}
