import { open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { Adapter } from 'lowdb';
import { crc32 } from 'node:zlib';
import { fsyncDirectory } from '../../../contracts/common/fsync.js';
import { checkedLine, checkedLines, entryJson, footerJson, headerJson, type SnapshotEntry } from './snapshot-codec.js';
import { readSnapshotFile } from './snapshot-reader.js';
import { writeFully } from '../../../contracts/common/write-fully.js';

export type { SnapshotEntry } from './snapshot-codec.js';

/** What lowdb holds for a snapshot: the journal position it covers and its records. */
export interface SnapshotData {
  seq: number;
  entries: Iterable<SnapshotEntry>;
  /** Read from a snapshot written before snapshots were checksummed, so unchecked. */
  unchecksummed?: boolean;
}

// Serialising is CPU on the event loop: write (and so yield) every ~128 KiB, whatever the record sizes.
const CHUNK_CHARS = 128 * 1024;

/**
 * How much of the event loop serialising a snapshot may take. Yielding
 * between chunks is not enough under open-loop load: requests keep
 * arriving at their rate, and while a snapshot took the whole loop the
 * server answered fewer than arrived, so a backlog grew for as long as the
 * snapshot lasted (a paced POS load at half the maximum rate saw answers
 * up to 1 s late). After each chunk the writer rests three times as long as
 * the chunk took, so requests keep three quarters of the loop. Serialising
 * then spreads over four times as long; the whole snapshot, mostly writing
 * and fsync, took about a third longer when measured (1.1–1.6 s for 30 MB).
 */
export const SNAPSHOT_LOOP_SHARE = 0.25;

export interface SnapshotPacing {
  /** The share of the event loop serialising may take, above 0 and at most 1 (1: no rest). */
  loopShare: number;
  /** Rests `ms` milliseconds; a timer unless a test injects its own. */
  rest?: (ms: number) => Promise<void>;
  /** Milliseconds, to time the serialising with; performance.now unless a test injects its own. */
  now?: () => number;
}

/**
 * A lowdb adapter for compacted snapshots. The file is JSON lines (a header,
 * one line per record, a footer with the count), each line checksummed and
 * the whole file checksummed in the footer (snapshot-codec.ts), so that a
 * damaged snapshot refuses start-up instead of serving wrong data; neither
 * writing nor
 * reading needs the whole state as one string, and writing yields to the
 * event loop between chunks. A write goes to a temp file that is fsynced,
 * renamed over the old snapshot, and then the directory is fsynced: a crash
 * leaves either the old snapshot or the new one, never a mix.
 */
export class SnapshotFileAdapter implements Adapter<SnapshotData | null> {
  private loopShare: number;
  private readonly rest: (ms: number) => Promise<void>;
  private readonly now: () => number;

  constructor(
    private readonly path: string,
    pacing: SnapshotPacing = { loopShare: SNAPSHOT_LOOP_SHARE },
  ) {
    if (!(pacing.loopShare > 0 && pacing.loopShare <= 1))
      throw new RangeError(
        `a snapshot's share of the event loop must be above 0 and at most 1, not ${pacing.loopShare}`,
      );
    this.loopShare = pacing.loopShare;
    this.rest = pacing.rest ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = pacing.now ?? (() => performance.now());
  }

  /** Runs `work` (a write) with no rests: for a snapshot written before the server serves anyone. */
  async unpaced<T>(work: () => Promise<T>): Promise<T> {
    const share = this.loopShare;
    this.loopShare = 1;
    try {
      return await work();
    } finally {
      this.loopShare = share;
    }
  }

  get tempPath(): string {
    return `${this.path}.tmp-${process.pid}`;
  }

  async read(): Promise<SnapshotData | null> {
    const exists = await stat(this.path).then(
      () => true,
      () => false,
    );
    if (!exists) return null;
    return readSnapshotFile(this.path);
  }

  async write(data: SnapshotData | null): Promise<void> {
    if (!data) throw new Error('nothing to snapshot');
    const temp = this.tempPath;
    const handle = await open(temp, 'w');
    let count = 0;
    let fileCrc = 0;
    // Every byte written before the footer goes through here, so the footer's checksum covers them all.
    const writeLines = async (jsons: string[]) => {
      const bytes = checkedLines(jsons);
      fileCrc = crc32(bytes, fileCrc);
      await writeFully(handle, bytes);
    };
    try {
      await writeLines([headerJson(data.seq)]);
      let chunk: string[] = [];
      let chars = 0;
      let serialisingSince = this.now();
      for (const entry of data.entries) {
        const line = entryJson(entry);
        chunk.push(line);
        chars += line.length;
        count += 1;
        if (chars >= CHUNK_CHARS) {
          if (this.loopShare < 1) await this.rest((this.now() - serialisingSince) * (1 / this.loopShare - 1));
          await writeLines(chunk);
          chunk = [];
          chars = 0;
          serialisingSince = this.now();
        }
      }
      if (chunk.length > 0) await writeLines(chunk);
      await writeFully(handle, Buffer.from(`${checkedLine(footerJson(count, fileCrc))}\n`, 'utf8'));
      await handle.sync();
    } catch (error) {
      // A snapshot that could not be written whole is never renamed into
      // place; its temp file goes at once, to give back the space it took.
      await handle.close().catch(() => undefined);
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    await handle.close();
    await rename(temp, this.path);
    await fsyncDirectory(dirname(this.path));
  }

  static isTempFile(name: string, snapshotPath: string): boolean {
    return name.startsWith(`${basename(snapshotPath)}.tmp-`);
  }
}
