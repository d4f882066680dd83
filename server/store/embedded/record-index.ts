import sortedBtree from 'sorted-btree';
import { compareValues, inRange, matchesWhere } from '../query.js';
import type { IndexDeclaration, Query, StoredRecord } from '../store.js';

// An ordered secondary index of one collection, kept in step with every
// change: a B+ tree (sorted-btree) of keys [the equality fields' values…,
// the order field's value, the record's id]. A query whose `where` names
// the equality fields walks only the records with those values, in the
// order field's order, either way, from a range's bound, skipping `offset`
// and stopping after `limit`, so it examines about offset + limit records
// however large the collection. Keys compare as query.ts orders values
// (missing first, then numbers, strings, booleans), so an index answers
// exactly what a scan (runQuery) answers.

type Key = unknown[];

// A CommonJS package: its class is the module's `default`.
const BTree = sortedBtree.default;

/** Above every value: the upper bound of a walk down from the top of a slot. */
const TOP = Symbol('top');

function compareKeys(a: Key, b: Key): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const x = a[i];
    const y = b[i];
    // Most fields are text or numbers of one type in every record: compare those directly.
    if (typeof x === 'string' && typeof y === 'string') {
      if (x !== y) return x < y ? -1 : 1;
      continue;
    }
    if (typeof x === 'number' && typeof y === 'number') {
      if (x !== y) return x - y;
      continue;
    }
    if (x === TOP || y === TOP) {
      if (x === y) continue;
      return x === TOP ? 1 : -1;
    }
    const order = compareValues(x, y);
    if (order !== 0) return order;
  }
  // A key that is a prefix of another sorts first: a prefix is the low bound of its slot.
  return a.length - b.length;
}

export interface Walk<T> {
  records: T[];
  /** The records' ids, in the same order. */
  ids: string[];
  /** Records looked at to answer: what the index saves is the difference from a scan. */
  examined: number;
}

/**
 * How well an index of this declaration serves a query: null when it
 * cannot (an equality field the query does not give, another order
 * field), else a score: more equality fields matched is better, then a
 * range it can bound. Both stores plan with it.
 */
export function indexScore(declaration: IndexDeclaration, query: Query): number | null {
  const where = query.where ?? {};
  if (!declaration.equals.every((field) => field in where)) return null;
  const order = declaration.order?.field;
  if (query.orderBy && query.orderBy.field !== order) return null;
  // Without an order the result's order is unspecified, so a page of it means nothing: scan those.
  if (!query.orderBy && (query.limit !== undefined || query.offset)) return null;
  // A range on the order field bounds the walk; on another field it only filters what the walk meets.
  return declaration.equals.length * 2 + (query.range && query.range.field === order ? 1 : 0);
}

/** The one of `items` whose declaration serves a query best, if any (both stores plan with it). */
export function bestServing<T>(
  items: readonly T[],
  declarationOf: (item: T) => IndexDeclaration,
  query: Query,
): T | null {
  let best: T | null = null;
  let bestScore = -1;
  for (const item of items) {
    const score = indexScore(declarationOf(item), query);
    if (score !== null && score > bestScore) [best, bestScore] = [item, score];
  }
  return best;
}

/** The declaration that serves a query best, if any. */
export function bestDeclaration(declarations: readonly IndexDeclaration[], query: Query): IndexDeclaration | null {
  return bestServing(declarations, (declaration) => declaration, query);
}

export class RecordIndex {
  private readonly tree = new BTree<Key, true>(undefined, compareKeys);

  constructor(readonly declaration: IndexDeclaration) {}

  /** False until filled: an index is built at its first use, so start-up builds none. */
  built = false;

  /** Adds existing records, their keys sorted once (about twice as fast as adding them one by one). */
  fill(entries: Iterable<[string, StoredRecord]>): void {
    const keys: Key[] = [];
    for (const [id, record] of entries) keys.push(this.keyOf(id, record));
    keys.sort(compareKeys);
    for (const key of keys) this.tree.set(key, true);
    this.built = true;
  }

  get size(): number {
    return this.tree.size;
  }

  add(id: string, record: StoredRecord): void {
    this.tree.set(this.keyOf(id, record), true);
  }

  remove(id: string, record: StoredRecord): void {
    this.tree.delete(this.keyOf(id, record));
  }

  /** Answers `query` (one `indexScore` says this index serves), fetching records by id. */
  walk<T extends StoredRecord>(query: Query, fetch: (id: string) => T | undefined): Walk<T> {
    const where = query.where ?? {};
    const prefix = this.declaration.equals.map((field) => where[field]);
    const descending = query.orderBy?.direction === 'desc';
    const { range } = query;
    const bounds = range?.field === this.declaration.order?.field ? range : undefined;
    const low: Key = bounds?.min !== undefined ? [...prefix, bounds.min] : prefix;
    const high: Key = bounds?.max !== undefined ? [...prefix, bounds.max, TOP] : [...prefix, TOP];
    const skip = query.offset ?? 0;
    const limit = query.limit ?? Number.POSITIVE_INFINITY;
    const records: T[] = [];
    const ids: string[] = [];
    let examined = 0;
    let skipped = 0;
    if (limit <= 0) return { records, ids, examined };
    const keys = descending ? mapFirst(this.tree.entriesReversed(high)) : this.tree.keys(low);
    for (const key of keys) {
      if (descending ? compareKeys(key, low) < 0 : compareKeys(key, high) > 0) break;
      examined += 1;
      const id = key[key.length - 1] as string;
      const record = fetch(id);
      if (!record) continue;
      // Checked on the record as runQuery checks: `where` exactly (a missing field is not null), and a range leaves out records without the field.
      if (!matchesWhere(record, where) || (range && !inRange(record, range))) continue;
      if (skipped < skip) {
        skipped += 1;
        continue;
      }
      records.push(record);
      ids.push(id);
      if (records.length >= limit) break;
    }
    return { records, ids, examined };
  }

  private keyOf(id: string, record: StoredRecord): Key {
    const key: Key = this.declaration.equals.map((field) => record[field]);
    if (this.declaration.order) key.push(record[this.declaration.order.field]);
    key.push(id);
    return key;
  }
}

function* mapFirst<K>(pairs: Iterable<[K, unknown]>): Generator<K> {
  for (const [key] of pairs) yield key;
}

export { compareKeys };
