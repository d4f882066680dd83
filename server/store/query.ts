import type { Query, StoredRecord } from './store.js';

// Pure evaluation of a Query over records, shared by the in-memory state.

export function matchesWhere(record: StoredRecord, where: Query['where']): boolean {
  for (const field in where) {
    if (record[field] !== where[field]) return false;
  }
  return true;
}

export function inRange(record: StoredRecord, range: Query['range']): boolean {
  if (!range) return true;
  const value = record[range.field];
  if (value === undefined || value === null) return false;
  // No min: nothing present ranks below a missing bound (compareValues puts missing values first).
  if (compareValues(value, range.min) < 0) return false;
  if (range.max !== undefined && compareValues(value, range.max) > 0) return false;
  return true;
}

export function runQuery<T extends StoredRecord>(entries: Iterable<[string, T]>, query: Query = {}): T[] {
  const matching: Array<[string, T]> = [];
  for (const entry of entries) {
    if (matchesWhere(entry[1], query.where) && inRange(entry[1], query.range)) matching.push(entry);
  }
  if (query.orderBy) {
    const { field, direction } = query.orderBy;
    matching.sort(([idA, a], [idB, b]) => {
      const ascending = compareValues(a[field], b[field]) || compareValues(idA, idB);
      return direction === 'desc' ? -ascending : ascending;
    });
  }
  const offset = query.offset ?? 0;
  const end = query.limit === undefined ? undefined : offset + query.limit;
  return matching.slice(offset, end).map(([, value]) => value);
}

/** Orders missing values first, then numbers, then strings, then booleans. */
export function compareValues(a: unknown, b: unknown): number {
  const rankA = rank(a);
  const rankB = rank(b);
  if (rankA !== rankB) return rankA - rankB;
  if (rankA === MISSING) return 0; // undefined and null are both missing: equal
  if (rankA === NUMBER) return (a as number) - (b as number);
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

const MISSING = 0;
const NUMBER = 1;

function rank(value: unknown): number {
  if (value === undefined || value === null) return MISSING;
  if (typeof value === 'number') return NUMBER;
  if (typeof value === 'string') return 2;
  return 3;
}
