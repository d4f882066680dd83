import type { Settlement } from '../../contracts/pos-types.js';
import type { Query } from '../store/store.js';
import type { IndexDeclaration } from '../store/store.js';

export const settlementFields = [
  'batchNumber',
  'transactionCount',
  'closedAt',
  'currencyReference',
  'terminal',
  'debitBatch',
] as const;
type Field = (typeof settlementFields)[number];

export type { Settlement } from '../../contracts/pos-types.js';

export interface SettlementRecord extends Settlement {
  [field: string]: unknown;
  merchantId: string;
  receivedAt: string;
}

/** Idempotency key: a terminal's batch number. Serials never contain "/" (their pattern), so no two pairs share a key. */
export const settlementKey = (terminal: string, batchNumber: string) => `${terminal}/${batchNumber}`;

export function publicSettlement(record: Settlement): Settlement {
  const { batchNumber, transactionCount, closedAt, currencyReference, terminal, debitBatch } = record;
  return { batchNumber, transactionCount, closedAt, currencyReference, terminal, debitBatch };
}

/** Whether a replayed notification carries the same six fields as the stored one. */
export function sameSettlement(a: Settlement, b: Settlement): boolean {
  return settlementFields.every((field) => a[field] === b[field]);
}

/**
 * `closedAt` → ascending, `-closedAt` → descending (the document restricts
 * the values). Within one terminal, its batch numbers' order is its keys'
 * (`terminal/batchNumber`), which is also the order "by terminal" gives (all
 * ties, broken by the key): one index serves both.
 */
export function parseSort(sort: string): NonNullable<Query['orderBy']> {
  const descending = sort.startsWith('-');
  const field = (descending ? sort.slice(1) : sort) as Field;
  return { field: field === 'batchNumber' ? 'terminal' : field, direction: descending ? 'desc' : 'asc' };
}

const settlementOrderTypes: Record<Field, NonNullable<IndexDeclaration['order']>> = {
  batchNumber: { field: 'batchNumber', type: 'text' },
  transactionCount: { field: 'transactionCount', type: 'number' },
  closedAt: { field: 'closedAt', type: 'time' },
  currencyReference: { field: 'currencyReference', type: 'text' },
  terminal: { field: 'terminal', type: 'text' },
  debitBatch: { field: 'debitBatch', type: 'text' },
};

/**
 * A terminal's settlements sorted on any of the six fields, either way,
 * bounded by closedAt (INTERFACE.md §4): batch number and terminal share one
 * order (parseSort), the keys' own (settlementKey), so PostgreSQL walks its
 * primary key for them; the four others have an index each. Each index is
 * a write of every settlement, on PostgreSQL a WAL record (BENCHMARKS.md,
 * bench:wal): an account's reset finds its settlements through its
 * terminals instead of an index of its own.
 */
export const settlementIndexes: IndexDeclaration[] = settlementFields
  .filter((field) => field !== 'batchNumber')
  .map((field): IndexDeclaration =>
    field === 'terminal'
      ? { equals: ['terminal'], order: settlementOrderTypes.terminal, idStartsWithIt: true }
      : { equals: ['terminal'], order: settlementOrderTypes[field] },
  );
