import { inRange, matchesWhere, runQuery } from '../query.js';
import { bestServing, RecordIndex } from './record-index.js';
import { deepFreeze } from '../frozen.js';
import type { IndexDeclarations, Query, StoredRecord } from '../store.js';
import { RowClaims, type RowClaim } from './row-claims.js';
export type { IndexDeclarations };

/** What to do with a query of a declared collection that no declared index serves. */
export type UnindexedQueries = 'scan' | 'throw';

/** One change inside a journal entry; an insert made with a claim keeps it with its row (row-claims.ts). */
export type Op =
  | { op: 'put'; collection: string; id: string; value: StoredRecord; claim?: RowClaim }
  | { op: 'del'; collection: string; id: string };

/** A record as loaded from, or captured for, a snapshot: with its row claim, when it has one. */
export type StateEntry = [collection: string, id: string, value: StoredRecord, claim?: RowClaim];

// While a snapshot is being written, deletes leave a tombstone in place so
// that the snapshot's iterator still meets every key that existed when the
// capture began, exactly once; the first change to a key during a capture
// saves the value it had then (or ABSENT) in the before-image.
const TOMBSTONE = Symbol('tombstone');
const ABSENT = Symbol('absent');

type Slot = StoredRecord | typeof TOMBSTONE;

interface Capture {
  collections: string[];
  beforeImage: Map<string, Map<string, StoredRecord | typeof ABSENT>>;
  tombstones: Array<[string, string]>;
}

/**
 * The whole store state in memory: collections of frozen records. Can
 * hand out a consistent view of itself as of one moment (a capture) while
 * changes keep being applied, without copying the state.
 */
export class MemoryState {
  private readonly collections = new Map<string, Map<string, Slot>>();
  private readonly sizes = new Map<string, number>();
  private capture: Capture | null = null;
  private readonly rowClaims = new RowClaims();
  /** The declared indexes per collection; each is built at its first use, then kept in step with every change. */
  private readonly indexes = new Map<string, RecordIndex[]>();
  /** Records looked at by lists since the state was made: what tests bound, and what indexes save. */
  examined = 0;

  private declared: IndexDeclarations = {};

  constructor(
    /** 'throw' in tests, so that a list no declared index serves fails there, not slowly in production. */
    private readonly unindexed: UnindexedQueries = 'scan',
  ) {}

  /** The query shapes each collection answers; indexes already built for a collection are built again from these. */
  declareIndexes(declarations: IndexDeclarations): void {
    this.declared = declarations;
    this.indexes.clear();
  }

  get(collection: string, id: string): StoredRecord | undefined {
    const slot = this.collections.get(collection)?.get(id);
    return slot === TOMBSTONE || slot === undefined ? undefined : deepFreeze(slot);
  }

  /** The claim kept with a row, if any (past its time or not: rowClaimHolds says). */
  rowClaim(collection: string, id: string): RowClaim | undefined {
    return this.rowClaims.get(collection, id);
  }

  /** Forgets the row claims of `claimCollection` whose time is at most `max` (they hold nothing any more). */
  pruneRowClaims(claimCollection: string, max: number): void {
    this.rowClaims.prune(claimCollection, max);
  }

  count(collection: string): number {
    return this.sizes.get(collection) ?? 0;
  }

  *entries(collection: string): Generator<[string, StoredRecord]> {
    const map = this.collections.get(collection);
    if (!map) return;
    for (const [id, slot] of map) if (slot !== TOMBSTONE) yield [id, deepFreeze(slot)];
  }

  list<T extends StoredRecord>(collection: string, query: Query = {}): T[] {
    const index = this.plan(collection, query);
    if (index) {
      if (!index.built) index.fill(this.entries(collection));
      const walk = index.walk<T>(query, (id) => this.get(collection, id) as T | undefined);
      this.examined += walk.examined;
      return walk.records;
    }
    this.examined += this.count(collection);
    return runQuery(this.entries(collection) as Iterable<[string, T]>, query);
  }

  /**
   * For a transaction's list: the records (with their ids) that match the
   * query's `where` and `range`, found through a declared index, in no
   * particular order and with no paging, so that the transaction can lay
   * its own writes over them; null when no declared index serves (scan).
   */
  candidates(collection: string, query: Query): Array<[string, StoredRecord]> | null {
    const filter: Query = {
      ...(query.where ? { where: query.where } : {}),
      ...(query.range ? { range: query.range } : {}),
    };
    const best = this.declared[collection]
      ? bestServing(this.indexesOf(collection), (index) => index.declaration, filter)
      : null;
    if (!best) return null;
    if (!best.built) best.fill(this.entries(collection));
    const walk = best.walk(filter, (id) => this.get(collection, id));
    this.examined += walk.examined;
    return walk.ids.map((id, i) => [id, walk.records[i]!]);
  }

  /** The ids of the records matching the query's `where` and `range`: through a declared index, else by a scan. */
  idsMatching(collection: string, query: Pick<Query, 'where' | 'range'>): string[] {
    const found =
      this.candidates(collection, query) ??
      [...this.entries(collection)].filter(
        ([, record]) => matchesWhere(record, query.where) && inRange(record, query.range),
      );
    return found.map(([id]) => id);
  }

  /** The declared index that serves a query best, or null for a scan. */
  private plan(collection: string, query: Query): RecordIndex | null {
    if (!this.declared[collection]) return null;
    const best = bestServing(this.indexesOf(collection), (index) => index.declaration, query);
    if (!best && this.unindexed === 'throw')
      throw new Error(
        `no declared index of ${collection} serves ${JSON.stringify(query)}: declare one in index-declarations.ts`,
      );
    return best;
  }

  private indexesOf(collection: string): RecordIndex[] {
    let built = this.indexes.get(collection);
    if (!built) {
      built = (this.declared[collection] ?? []).map((declaration) => new RecordIndex(declaration));
      this.indexes.set(collection, built);
    }
    return built;
  }

  get totalRecords(): number {
    let total = 0;
    for (const size of this.sizes.values()) total += size;
    return total;
  }

  apply(ops: readonly Op[]): void {
    for (const op of ops) {
      if (op.op === 'put') this.put(op.collection, op.id, op.value, op.claim);
      else this.remove(op.collection, op.id);
    }
  }

  /**
   * Adds records while loading, before any capture can exist. Records are
   * frozen when first handed out rather than here, which keeps start-up fast.
   */
  load(entries: Iterable<Readonly<StateEntry>>): void {
    let collection: string | undefined;
    let map: Map<string, Slot> | undefined;
    for (const [c, id, value, claim] of entries) {
      if (c !== collection) {
        collection = c;
        map = this.collections.get(c);
        if (!map) this.collections.set(c, (map = new Map()));
      }
      map!.set(id, value);
      if (claim) this.rowClaims.set(c, id, claim);
    }
    for (const [c, loaded] of this.collections) this.sizes.set(c, loaded.size);
  }

  /** Starts a consistent view as of now; changes applied afterwards do not show in it. */
  beginCapture(): void {
    if (this.capture) throw new Error('a capture is already in progress');
    this.capture = { collections: [...this.collections.keys()], beforeImage: new Map(), tombstones: [] };
  }

  /**
   * Every record as it was when the capture began, with its row claim as it
   * is now (a row's claim changes only with an operation of the journal
   * after the capture, which replay applies again). Safe to consume across
   * awaits.
   */
  *capturedEntries(): Generator<StateEntry> {
    const capture = this.capture;
    if (!capture) throw new Error('no capture in progress');
    for (const collection of capture.collections) {
      const map = this.collections.get(collection)!;
      const before = () => capture.beforeImage.get(collection);
      // Looked up per collection: most have no row claims, and their records then cost no lookup.
      const claims = this.rowClaims.of(collection);
      for (const [id, slot] of map) {
        const saved = before()?.get(id);
        if (saved === ABSENT) continue;
        const value = saved ?? slot;
        if (value === TOMBSTONE) continue;
        const claim = claims?.get(id);
        yield claim ? [collection, id, value, claim] : [collection, id, value];
      }
    }
  }

  endCapture(): void {
    const capture = this.capture;
    if (!capture) return;
    this.capture = null;
    for (const [collection, id] of capture.tombstones) {
      const map = this.collections.get(collection);
      if (map?.get(id) === TOMBSTONE) map.delete(id);
    }
  }

  /** Writes a record; an insert made with a claim keeps it with the row (a put without one leaves the row's as it is). */
  private put(collection: string, id: string, value: StoredRecord, claim?: RowClaim): void {
    let map = this.collections.get(collection);
    if (!map) {
      map = new Map();
      this.collections.set(collection, map);
    }
    const previous = map.get(id);
    this.remember(collection, id, previous);
    if (previous === undefined || previous === TOMBSTONE) this.sizes.set(collection, this.count(collection) + 1);
    const frozen = deepFreeze(value);
    map.set(id, frozen);
    if (claim) this.rowClaims.set(collection, id, claim);
    for (const index of this.indexes.get(collection) ?? []) {
      if (!index.built) continue;
      if (previous !== undefined && previous !== TOMBSTONE) index.remove(id, previous);
      index.add(id, frozen);
    }
  }

  private remove(collection: string, id: string): void {
    const map = this.collections.get(collection);
    const previous = map?.get(id);
    if (!map || previous === undefined || previous === TOMBSTONE) return;
    this.remember(collection, id, previous);
    this.rowClaims.delete(collection, id);
    this.sizes.set(collection, this.count(collection) - 1);
    for (const index of this.indexes.get(collection) ?? []) if (index.built) index.remove(id, previous);
    if (this.capture) {
      map.set(id, TOMBSTONE);
      this.capture.tombstones.push([collection, id]);
    } else {
      map.delete(id);
    }
  }

  private remember(collection: string, id: string, previous: Slot | undefined): void {
    if (!this.capture) return;
    let before = this.capture.beforeImage.get(collection);
    if (!before) {
      before = new Map();
      this.capture.beforeImage.set(collection, before);
    }
    if (!before.has(id)) before.set(id, previous === undefined || previous === TOMBSTONE ? ABSENT : previous);
  }
}
