import { settlementOf, type Settlement } from '../../contracts/pos-types.js';
import { posSchemas, settlementFields } from '../../contracts/schemas/pos.js';
import type { IndexDeclaration, OrderType, Query } from '../store/store.js';

export { settlementFields };
type Field = (typeof settlementFields)[number];

export type { Settlement };

export interface SettlementRecord extends Settlement {
  [field: string]: unknown;
  merchantId: string;
  receivedAt: string;
}

/** Idempotency key: a terminal's batch number. Serials never contain "/" (their pattern), so no two pairs share a key. */
export const settlementKey = (terminal: string, batchNumber: string) => `${terminal}/${batchNumber}`;

/** What the routes answer of a stored settlement: its six fields. */
export const publicSettlement = settlementOf;

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

/** How a field orders, from its schema: integers as numbers, date-times as times, the rest as text. */
function orderTypeOf(field: Field): OrderType {
  const schema = (posSchemas.Settlement!.properties ?? {})[field] as { type?: string; format?: string };
  return schema.type === 'integer' ? 'number' : schema.format === 'date-time' ? 'time' : 'text';
}

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
      ? { equals: ['terminal'], order: { field, type: orderTypeOf(field) }, idStartsWithIt: true }
      : { equals: ['terminal'], order: { field, type: orderTypeOf(field) } },
  );
