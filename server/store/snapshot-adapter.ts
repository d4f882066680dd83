import { open, rename, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { Adapter } from 'lowdb';
import { StoreCorruptError } from '../errors.js';
import { fsyncDirectory } from './fsync.js';
import { readLineBatches } from './read-lines.js';
import type { StoredRecord } from './store.js';

export type SnapshotEntry = [collection: string, id: string, value: StoredRecord];

/** What lowdb holds for a snapshot: the journal position it covers and its records. */
export interface SnapshotData {
  seq: number;
  entries: Iterable<SnapshotEntry>;
}

const FORMAT = 'svc-snapshot/1';
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
 * one line per record, a footer with the count) so that neither writing nor
 * reading needs the whole state as one string, and writing yields to the
 * event loop between chunks. A write goes to a temp file that is fsynced,
 * renamed over the old snapshot, and then the directory is fsynced: a crash
 * leaves either the old snapshot or the new one, never a mix.
 */
export class SnapshotFileAdapter implements Adapter<SnapshotData | null> {
  private readonly loopShare: number;
  private readonly rest: (ms: number) => Promise<void>;
  private readonly now: () => number;

  constructor(
    private readonly path: string,
    pacing: SnapshotPacing = { loopShare: SNAPSHOT_LOOP_SHARE },
  ) {
    if (!(pacing.loopShare > 0 && pacing.loopShare <= 1)) throw new RangeError(`a snapshot's share of the event loop must be above 0 and at most 1, not ${pacing.loopShare}`);
    this.loopShare = pacing.loopShare;
    this.rest = pacing.rest ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = pacing.now ?? (() => performance.now());
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
    const entries: SnapshotEntry[] = [];
    let seq: number | null = null;
    let complete = false;
    for await (const batch of readLineBatches(this.path)) {
      const lineAt = (i: number): Line => ({ text: batch.lines[i]!, number: batch.firstNumber + i });
      let from = 0;
      let to = batch.lines.length;
      if (complete) throw new StoreCorruptError(this.path, batch.firstNumber, 'data after the footer');
      if (seq === null) {
        seq = parseHeader(lineAt(0), this.path);
        from = 1;
      }
      if (to > from && !batch.lines[to - 1]!.startsWith('[')) {
        checkFooter(lineAt(to - 1), entries.length + (to - 1 - from), this.path);
        complete = true;
        to -= 1;
      }
      parseRecords(batch.lines, from, to, batch.firstNumber, this.path, entries);
    }
    if (seq === null || !complete) throw new StoreCorruptError(this.path, 0, 'snapshot is incomplete');
    return { seq, entries };
  }

  async write(data: SnapshotData | null): Promise<void> {
    if (!data) throw new Error('nothing to snapshot');
    const temp = this.tempPath;
    const handle = await open(temp, 'w');
    let count = 0;
    try {
      await handle.write(`${JSON.stringify({ format: FORMAT, seq: data.seq })}\n`);
      let chunk: string[] = [];
      let chars = 0;
      let serialisingSince = this.now();
      for (const entry of data.entries) {
        const line = JSON.stringify(entry);
        chunk.push(line);
        chars += line.length;
        count += 1;
        if (chars >= CHUNK_CHARS) {
          if (this.loopShare < 1) await this.rest((this.now() - serialisingSince) * (1 / this.loopShare - 1));
          await handle.write(`${chunk.join('\n')}\n`);
          chunk = [];
          chars = 0;
          serialisingSince = this.now();
        }
      }
      if (chunk.length > 0) await handle.write(`${chunk.join('\n')}\n`);
      await handle.write(`${JSON.stringify({ end: true, count })}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, this.path);
    await fsyncDirectory(dirname(this.path));
  }

  static isTempFile(name: string, snapshotPath: string): boolean {
    return name.startsWith(`${basename(snapshotPath)}.tmp-`);
  }
}

function parseHeader(line: Line, path: string): number {
  const header = parseJson(line, path) as { format?: unknown; seq?: unknown };
  if (header.format !== FORMAT || typeof header.seq !== 'number') throw new StoreCorruptError(path, line.number, 'not a snapshot header');
  return header.seq;
}

function checkFooter(line: Line, expectedCount: number, path: string): void {
  const footer = parseJson(line, path) as { end?: unknown; count?: unknown };
  if (footer.end !== true || footer.count !== expectedCount) throw new StoreCorruptError(path, line.number, 'footer count does not match');
}

interface Line {
  text: string;
  number: number;
}

/**
 * Parses record lines [from, to) with one JSON.parse, appending to `into`;
 * when that fails, parses line by line to name the bad one.
 */
function parseRecords(lines: string[], from: number, to: number, firstNumber: number, path: string, into: SnapshotEntry[]): void {
  if (to <= from) return;
  let parsed: unknown[];
  try {
    parsed = JSON.parse(`[${lines.slice(from, to).join(',')}]`) as unknown[];
    if (parsed.length !== to - from) throw new Error('a line held more than one value');
  } catch {
    parsed = lines.slice(from, to).map((text, i) => parseJson({ text, number: firstNumber + from + i }, path));
  }
  for (const [i, entry] of parsed.entries()) {
    if (!isEntry(entry)) throw new StoreCorruptError(path, firstNumber + from + i, 'malformed record');
    into.push(entry);
  }
}

function isEntry(value: unknown): value is SnapshotEntry {
  return (
    Array.isArray(value) && value.length === 3 && typeof value[0] === 'string' && typeof value[1] === 'string' &&
    typeof value[2] === 'object' && value[2] !== null
  );
}

function parseJson(line: Line, path: string): unknown {
  try {
    return JSON.parse(line.text);
  } catch {
    throw new StoreCorruptError(path, line.number, 'not JSON');
  }
}
