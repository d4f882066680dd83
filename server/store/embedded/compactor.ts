import { stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Low } from 'lowdb';
import type { Logger } from '../../log.js';
import { fsyncDirectory } from '../../../contracts/common/fsync.js';
import { listJournalFiles, SNAPSHOT_FILE } from './journal-files.js';
import type { JournalWriter } from './journal-writer.js';
import type { MemoryState } from './memory-state.js';
import type { SnapshotData, SnapshotFileAdapter } from './snapshot-adapter.js';

const SNAPSHOT_RETRY_MS = 10_000;

/** What the embedded store's compaction works on, as the store opened them. */
export interface CompactorParts {
  dir: string;
  state: MemoryState;
  writer: JournalWriter;
  /** The snapshot file, written through lowdb. */
  snapshots: Low<SnapshotData | null>;
  snapshotFiles: SnapshotFileAdapter;
  /** Size of the snapshot on disk at start-up. */
  snapshotBytes: number;
  /** Journal bytes on disk in files the writer has closed (earlier runs' included), not yet compacted. */
  closedJournalBytes: number;
  /** A snapshot is due once the journal since the last one exceeds max(this, the last snapshot's size). */
  minJournalBytes: number;
  log: Logger;
}

/**
 * The embedded store's compaction: a snapshot of the whole state, written
 * through lowdb off the request path (paced), once the journal since the
 * last one outgrows it, after which the journal files it covers go. So
 * compaction work stays proportional to the writes, however large the state.
 */
export class Compactor {
  private running: Promise<void> | null = null;
  /** performance.now() before which no snapshot is tried again after one failed. */
  private retryAfter = 0;
  private snapshotBytes: number;
  private closedJournalBytes: number;
  private closed = false;

  constructor(private readonly parts: CompactorParts) {
    this.snapshotBytes = parts.snapshotBytes;
    this.closedJournalBytes = parts.closedJournalBytes;
  }

  /** Bytes of journal on disk since the last snapshot, whichever runs wrote them. */
  get journalBytes(): number {
    return this.closedJournalBytes + this.parts.writer.bytesSinceRotation;
  }

  /** True when the journal since the last snapshot has grown past what triggers compaction. */
  due(): boolean {
    return this.journalBytes >= Math.max(this.parts.minJournalBytes, this.snapshotBytes);
  }

  /** Starts a snapshot of everything up to `seq` when one is due (or forced), unless one is running or failed a moment ago. */
  maybe(seq: () => number, force = false): void {
    if (this.running || this.closed) return;
    if (!force && !this.due()) return;
    // After a failed snapshot (a full disk) the next try waits: retrying
    // after every write would rotate the journal each time for nothing.
    if (!force && performance.now() < this.retryAfter) return;
    void this.snapshot(seq).catch((error: Error) => {
      this.retryAfter = performance.now() + SNAPSHOT_RETRY_MS;
      this.parts.log.error('snapshot failed; the journal still holds every change', {
        error: error.message,
        retryInMs: SNAPSHOT_RETRY_MS,
      });
    });
  }

  /**
   * Writes a compacted snapshot covering everything committed before the
   * call (`seq()` read when it starts); when one is already being written,
   * waits for it and writes another.
   */
  async snapshot(seq: () => number): Promise<void> {
    while (this.running) await this.running.catch(() => undefined);
    const run = this.write(seq()).finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }

  /** Takes no more snapshots; waits for the one being written. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.running) await this.running.catch(() => undefined);
  }

  private async write(seq: number): Promise<void> {
    const { dir, state, writer, snapshots, log } = this.parts;
    // Capture and rotation happen in one synchronous step, so the snapshot
    // covers exactly the entries up to `seq` and the new journal file
    // starts right after it.
    state.beginCapture();
    try {
      this.closedJournalBytes += await writer.rotate(seq + 1);
      snapshots.data = { seq, entries: state.capturedEntries() };
      await snapshots.write();
    } finally {
      snapshots.data = null;
      state.endCapture();
    }
    this.snapshotBytes = await stat(join(dir, SNAPSHOT_FILE)).then((s) => s.size);
    // Every closed file is now in the snapshot: the writer's current one starts at seq + 1.
    this.closedJournalBytes = 0;
    const obsolete = (await listJournalFiles(dir)).filter((file) => file.firstSeq <= seq);
    await Promise.all(obsolete.map((file) => unlink(file.path)));
    if (obsolete.length > 0) await fsyncDirectory(dir);
    log.debug('snapshot written', { seq, bytes: this.snapshotBytes, removedJournals: obsolete.length });
  }
}
