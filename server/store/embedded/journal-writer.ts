import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, appError } from '../../errors.js';
import { fsyncDirectory } from '../../../contracts/common/fsync.js';
import { journalFileName } from './journal-files.js';
import { bytesWrittenBefore, writeFully } from '../../../contracts/common/write-fully.js';

/** What the writer needs of an open journal file; a test gives a double that writes short. */
export type JournalHandle = Pick<FileHandle, 'write' | 'datasync' | 'truncate' | 'close'>;
/** Opens a journal file for appending. */
export type OpenJournalFile = (path: string) => Promise<JournalHandle>;

type Item =
  | { kind: 'entry'; seq: number; line: string }
  | { kind: 'rotate'; nextSeq: number; done: (error: Error | null, closedBytes?: number) => void };

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * Appends journal lines with group commit: whatever is queued while a flush
 * is under way goes out together in the next one, so many concurrent
 * transactions share one write and one fdatasync. Batches go one at a time,
 * each written and then fdatasync'd before the next is written; `append`
 * resolves once its batch is durable, strictly in order. (Overlapping a
 * batch's write with the previous batch's fdatasync was measured: smaller
 * batches, so more thread-pool hand-offs, cost about 5 % more CPU per
 * request under load, and bench:store showed no lower latency for it.)
 * After a failed write or sync the journal refuses everything: memory may
 * then hold changes that are not durable, so the process must restart and
 * replay. A batch is acknowledged only once every byte of it is written
 * (short writes are looped over, write-fully.ts) and synced; when a write
 * fails part way (a full disk), the part that reached the file is cut off
 * again before anyone is told, so the file ends with the last acknowledged
 * line and a later start finds nothing to mistake for a torn write.
 */
export class JournalWriter {
  private queue: Item[] = [];
  private waiters: Waiter[] = [];
  private flushing: Promise<void> | null = null;
  private failure: Error | null = null;
  private durable: number;
  private bytes = 0;

  private constructor(
    private readonly dir: string,
    private handle: JournalHandle,
    lastDurableSeq: number,
    private readonly openFile: OpenJournalFile,
  ) {
    this.durable = lastDurableSeq;
  }

  /**
   * Opens the journal for entries from `nextSeq` on: appending to `continueFile`
   * (the newest journal file, whose `bytes` end with a complete line) when
   * given, so restarts do not leave a file each; otherwise a new file named
   * after `nextSeq`.
   */
  static async open(
    dir: string,
    nextSeq: number,
    continueFile?: { name: string; bytes: number },
    openFile: OpenJournalFile = (path) => open(path, 'a'),
  ): Promise<JournalWriter> {
    if (!continueFile)
      return new JournalWriter(dir, await openJournalFile(dir, nextSeq, openFile), nextSeq - 1, openFile);
    const writer = new JournalWriter(dir, await openFile(join(dir, continueFile.name)), nextSeq - 1, openFile);
    writer.bytes = continueFile.bytes;
    return writer;
  }

  get durableSeq(): number {
    return this.durable;
  }

  /** Bytes of the current file (written since the last rotation, or found in it at open). */
  get bytesSinceRotation(): number {
    return this.bytes;
  }

  get failed(): Error | null {
    return this.failure;
  }

  append(seq: number, line: string): Promise<void> {
    if (this.failure) return Promise.reject(this.unavailable());
    this.queue.push({ kind: 'entry', seq, line });
    const durable = this.waitDurable(seq);
    this.kick();
    return durable;
  }

  /** Resolves once every entry up to `seq` is durable. */
  waitDurable(seq: number): Promise<void> {
    if (seq <= this.durable) return Promise.resolve();
    if (this.failure) return Promise.reject(this.unavailable());
    return new Promise((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
  }

  /**
   * After every queued entry is durable, continues in a new file starting at
   * `nextSeq`; resolves with the bytes written to the file it closed.
   */
  rotate(nextSeq: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({
        kind: 'rotate',
        nextSeq,
        done: (error, closedBytes) => (error ? reject(error) : resolve(closedBytes ?? 0)),
      });
      this.kick();
    });
  }

  async close(): Promise<void> {
    while (this.flushing) await this.flushing;
    await this.handle.close();
  }

  private kick(): void {
    if (this.flushing || this.failure) return;
    this.flushing = this.drain().finally(() => {
      this.flushing = null;
      if (this.queue.length > 0) this.kick();
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0 && !this.failure) {
      const first = this.queue[0]!;
      if (first.kind === 'rotate') {
        this.queue.shift();
        await this.switchFile(first); // every earlier batch is already synced
        continue;
      }
      const rotateAt = this.queue.findIndex((item) => item.kind === 'rotate');
      const batch = this.queue.splice(0, rotateAt === -1 ? this.queue.length : rotateAt) as Array<
        Item & { kind: 'entry' }
      >;
      await this.writeBatch(batch);
    }
  }

  private async writeBatch(batch: Array<{ seq: number; line: string }>): Promise<void> {
    const data = Buffer.from(batch.map((item) => item.line).join(''), 'utf8');
    const start = this.bytes;
    try {
      await writeFully(this.handle, data);
      this.bytes += data.length;
      await this.handle.datasync();
    } catch (error) {
      await this.cutBackTo(start, bytesWrittenBefore(error) > 0 || this.bytes > start, error as Error);
      this.fail(error as Error);
      return;
    }
    this.durable = Math.max(this.durable, batch[batch.length - 1]!.seq);
    this.releaseWaiters();
  }

  private async switchFile(request: {
    nextSeq: number;
    done: (error: Error | null, closedBytes?: number) => void;
  }): Promise<void> {
    try {
      const next = await openJournalFile(this.dir, request.nextSeq, this.openFile);
      const previous = this.handle;
      const closedBytes = this.bytes;
      this.handle = next;
      this.bytes = 0;
      await previous.close();
      request.done(null, closedBytes);
    } catch (error) {
      this.fail(error as Error);
      request.done(error as Error);
    }
  }

  /**
   * Cuts the file back to `length` bytes after a failed batch, so none of
   * its bytes stay behind a later restart (the batch was never acknowledged).
   * A cut that fails too is said in the failure: the line left is then a
   * torn one, dropped at the next start.
   */
  private async cutBackTo(length: number, needed: boolean, failure: Error): Promise<void> {
    if (!needed) return;
    try {
      await this.handle.truncate(length);
      await this.handle.datasync();
      this.bytes = length;
      failure.message += ` (the unacknowledged partial batch was cut off the journal)`;
    } catch (cutError) {
      failure.message += ` (cutting the partial batch off failed too: ${(cutError as Error).message}; the next start drops it as a torn line)`;
    }
  }

  private releaseWaiters(): void {
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.seq <= this.durable) waiter.resolve();
      else still.push(waiter);
    }
    this.waiters = still;
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    const unavailable = this.unavailable();
    for (const waiter of this.waiters) waiter.reject(unavailable);
    this.waiters = [];
    for (const item of this.queue) if (item.kind === 'rotate') item.done(unavailable);
    this.queue = [];
  }

  private unavailable(): AppError<'STORE_UNAVAILABLE'> {
    return appError(
      'STORE_UNAVAILABLE',
      `journal write failed (${this.failure?.message ?? 'unknown'}); restart the server`,
    );
  }
}

async function openJournalFile(dir: string, firstSeq: number, openFile: OpenJournalFile): Promise<JournalHandle> {
  const handle = await openFile(join(dir, journalFileName(firstSeq)));
  // The new name must be durable before any entry in it is acknowledged.
  await fsyncDirectory(dir);
  return handle;
}
