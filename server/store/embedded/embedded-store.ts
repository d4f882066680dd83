import { isDeepStrictEqual } from 'node:util';
import { mkdir } from 'node:fs/promises';
import { appError } from '../../errors.js';
import { silentLogger } from '../../log.js';
import { encodeEntry } from './journal-codec.js';
import type { JournalWriter } from './journal-writer.js';
import { Compactor } from './compactor.js';
import { MemoryState, type IndexDeclarations } from './memory-state.js';
import { Mutex } from './mutex.js';
import { PendingWrites } from './pending-writes.js';
import { OverlayTransaction } from './overlay-transaction.js';
import { loadDirectory, type EmbeddedStoreOptions, type OpenStats } from './store-opening.js';
import { lockDirectory, type DirectoryLock } from './dir-lock.js';
import { claimAndWriteIn, claimIn, readLinkedIn } from './claim-steps.js';
import type {
  Claim,
  ClaimedWrite,
  ClaimedWriteOutcome,
  LinkedRead,
  LinkedRecords,
  Query,
  ReadBasis,
  Store,
  StoredRecord,
  Transaction,
} from '../store.js';
import { LocalBus } from './local-bus.js';

export type { EmbeddedStoreOptions, OpenStats } from './store-opening.js';

/**
 * The embedded default store: the whole state in memory, every transaction
 * appended to a checksummed journal with group commit (answered only once
 * fdatasync'd), and compacted snapshots written through lowdb off the
 * request path. Start-up locks the directory, loads the snapshot and
 * replays the journal.
 */
export class EmbeddedStore implements Store {
  readonly kind = 'embedded';
  /** One instance per directory (the directory lock): messages stay within it. */
  readonly bus = new LocalBus();
  private readonly mutex = new Mutex();
  private readonly pending = new PendingWrites();
  private closed = false;

  private constructor(
    private readonly state: MemoryState,
    private readonly writer: JournalWriter,
    private readonly lock: DirectoryLock,
    private readonly compactor: Compactor,
    private seq: number,
    readonly openStats: OpenStats,
  ) {}

  static async open(options: EmbeddedStoreOptions): Promise<EmbeddedStore> {
    const { dir } = options;
    const log = options.log ?? silentLogger;
    await mkdir(dir, { recursive: true });
    const lock = await lockDirectory(dir);
    try {
      const loaded = await loadDirectory(dir, options, log);
      const { state, writer, snapshots, snapshotFiles, snapshotPath, replay, unchecksummedSnapshot } = loaded;
      const compactor = new Compactor({
        dir,
        state,
        writer,
        snapshots,
        snapshotFiles,
        snapshotBytes: loaded.snapshotBytes,
        closedJournalBytes: replay.journalBytes - (replay.continuable?.bytes ?? 0),
        minJournalBytes: options.snapshotMinJournalBytes ?? 16 * 1024 * 1024,
        log,
      });
      const store = new EmbeddedStore(state, writer, lock, compactor, replay.lastSeq, loaded.openStats);
      if (unchecksummedSnapshot)
        log.warn('the snapshot predates checksums; writing a checksummed one now', { file: snapshotPath });
      if (loaded.interruptedSnapshot && compactor.due()) {
        // The last run was killed while writing a snapshot it needed. Had
        // this run compacted off the path to listening as well, kills that
        // come faster than a paced snapshot completes would stop every
        // snapshot, and the journal (so start-up time) would grow without
        // bound. So the compaction is done here, unpaced, before anything is
        // served: this start takes a snapshot's write longer, and the next
        // one replays a short journal.
        const started = performance.now();
        await snapshotFiles.unpaced(() => store.snapshot());
        log.warn('the last run was stopped while writing a snapshot; compacted before serving', {
          ms: Math.round(performance.now() - started),
        });
        return store;
      }
      // A long journal left by earlier runs is compacted soon after start-up,
      // off the path to listening (the snapshot is written in paced chunks).
      setImmediate(() => compactor.maybe(() => store.seq, unchecksummedSnapshot && replay.lastSeq > 0));
      return store;
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  // Reads answer only durable state: when what they read has a change that
  // is applied but not yet on disk, they wait for that change's flush.

  get<T extends StoredRecord>(collection: string, id: string): Promise<T | undefined> {
    return this.once(this.state.get(collection, id) as T | undefined, this.pending.forRecord(collection, id));
  }

  async getLinked<T extends StoredRecord, L extends StoredRecord>(
    collection: string,
    id: string,
    field: string,
    linkedCollection: string,
  ): Promise<[T | undefined, L | undefined]> {
    const record = await this.get<T>(collection, id);
    const link = record?.[field];
    return [record, typeof link === 'string' ? await this.get<L>(linkedCollection, link) : undefined];
  }

  async list<T extends StoredRecord>(collection: string, query?: Query): Promise<T[]> {
    return this.once(this.state.list<T>(collection, query), this.pending.forCollection(collection));
  }

  count(collection: string, where?: Query['where']): Promise<number> {
    const total = where ? this.state.list(collection, { where }).length : this.state.count(collection);
    return this.once(total, this.pending.forCollection(collection));
  }

  async insertIfAbsent<T extends StoredRecord>(
    collection: string,
    id: string,
    value: StoredRecord,
  ): Promise<T | undefined> {
    return this.transact(async (tx) => {
      const existing = await tx.get<T>(collection, id);
      if (!existing) tx.insert(collection, id, value);
      return existing;
    });
  }

  async replaceIf(collection: string, id: string, expected: StoredRecord, next: StoredRecord): Promise<boolean> {
    return this.transact(async (tx) => {
      const current = await tx.get(collection, id);
      // The record handed out is the one kept, so the same object is the common answer; equal content counts too.
      if (!current || (current !== expected && !isDeepStrictEqual(current, expected))) return false;
      tx.put(collection, id, next);
      return true;
    });
  }

  claimAndRead<T extends StoredRecord, L extends StoredRecord>(
    claim: Claim,
    read: LinkedRead,
  ): Promise<{ claimed: boolean } & LinkedRecords<T, L>> {
    return this.transact(async (tx) => ({
      claimed: await claimIn(tx, claim),
      ...(await readLinkedIn<T, L>(tx, read)),
    }));
  }

  claimAndWrite<T extends StoredRecord, L extends StoredRecord>(
    claim: Claim,
    read: LinkedRead,
    basis: ReadBasis,
    write: ClaimedWrite,
  ): Promise<ClaimedWriteOutcome<T, L>> {
    return this.inTransaction((tx) => claimAndWriteIn<T, L>(tx, claim, read, basis, write));
  }

  /** Deletes the markers past their time, and forgets the claims of `collection` kept with rows and past their time too. */
  async deleteUpTo(collection: string, field: string, max: number): Promise<void> {
    await this.transact((tx) => {
      for (const id of this.state.idsMatching(collection, { range: { field, max } })) tx.delete(collection, id);
    });
    this.state.pruneRowClaims(collection, max);
  }

  transact<R>(work: (tx: Transaction) => Promise<R> | R): Promise<R> {
    return this.inTransaction(work);
  }

  /** One transaction: its work on an overlay of the state, then its operations journaled and applied, durable before it resolves. */
  private async inTransaction<R>(work: (tx: OverlayTransaction) => Promise<R> | R): Promise<R> {
    const { result, durable } = await this.mutex.run(async () => {
      if (this.closed) throw appError('STORE_UNAVAILABLE', 'the store is closed');
      if (this.writer.failed)
        throw appError('STORE_UNAVAILABLE', `journal write failed (${this.writer.failed.message}); restart the server`);
      const tx = new OverlayTransaction(this.state);
      const result = await work(tx);
      const ops = tx.commitOps();
      if (ops.length === 0) return { result, durable: this.once(undefined, this.pendingFor(tx)) };
      const seq = this.seq + 1;
      const line = encodeEntry(seq, ops); // throws on unserialisable values, before anything changed
      this.seq = seq;
      this.state.apply(ops);
      const keys = ops.map((op): [string, string] => [op.collection, op.id]);
      this.pending.add(seq, keys);
      const durable = this.writer.append(seq, line);
      void durable.then(
        () => this.pending.settle(seq, keys),
        () => undefined,
      );
      return { result, durable };
    });
    await durable;
    this.compactor.maybe(() => this.seq);
    return result;
  }

  declareIndexes(declarations: IndexDeclarations): void {
    this.state.declareIndexes(declarations);
  }

  /** Records looked at by lists since the store opened (an index's walk, or a whole collection's scan). */
  get examined(): number {
    return this.state.examined;
  }

  async ping(): Promise<void> {
    if (this.closed) throw appError('STORE_UNAVAILABLE', 'the store is closed');
    if (this.writer.failed)
      throw appError('STORE_UNAVAILABLE', `journal write failed (${this.writer.failed.message}); restart the server`);
  }

  /**
   * The directory lock already makes this the only instance: every existing
   * record is free to work on, and a lease has nothing to exclude.
   */
  async lease(collection: string, ids: readonly string[]): Promise<string[]> {
    return ids.filter((id) => this.state.get(collection, id) !== undefined);
  }

  async release(): Promise<void> {}

  /** The latest pending change among what a read-only transaction read, if any. */
  private pendingFor(tx: OverlayTransaction): number | undefined {
    let latest: number | undefined;
    const consider = (seq: number | undefined) => {
      if (seq !== undefined && (latest === undefined || seq > latest)) latest = seq;
    };
    for (const [collection, id] of tx.readRecords) consider(this.pending.forRecord(collection, id));
    for (const collection of tx.readCollections) consider(this.pending.forCollection(collection));
    return latest;
  }

  /** `value` once the change `seq` it depends on is durable; at once when nothing is pending. */
  private once<T>(value: T, seq: number | undefined): Promise<T> {
    return seq === undefined ? Promise.resolve(value) : this.writer.waitDurable(seq).then(() => value);
  }

  /**
   * Writes a compacted snapshot covering everything committed before the
   * call; when one is already being written, waits for it and writes another.
   */
  snapshot(): Promise<void> {
    return this.compactor.snapshot(() => this.seq);
  }

  /** Bytes of journal on disk since the last snapshot, whichever runs wrote them. */
  get journalBytes(): number {
    return this.compactor.journalBytes;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.mutex.run(async () => {
      this.closed = true;
    });
    await this.compactor.close();
    await this.writer.close();
    await this.lock.release();
  }
}
