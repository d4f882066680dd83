import { open, rename, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { Adapter } from 'lowdb';
import { StoreCorruptError } from '../errors.js';
import { fsyncDirectory } from './fsync.js';
import { readLines } from './read-lines.js';
import type { StoredRecord } from './store.js';

export type SnapshotEntry = [collection: string, id: string, value: StoredRecord];

/** What lowdb holds for a snapshot: the journal position it covers and its records. */
export interface SnapshotData {
  seq: number;
  entries: Iterable<SnapshotEntry>;
}

const FORMAT = 'svc-snapshot/1';
const CHUNK_RECORDS = 2000;

/**
 * A lowdb adapter for compacted snapshots. The file is JSON lines (a header,
 * one line per record, a footer with the count) so that neither writing nor
 * reading needs the whole state as one string, and writing yields to the
 * event loop between chunks. A write goes to a temp file that is fsynced,
 * renamed over the old snapshot, and then the directory is fsynced: a crash
 * leaves either the old snapshot or the new one, never a mix.
 */
export class SnapshotFileAdapter implements Adapter<SnapshotData | null> {
  constructor(private readonly path: string) {}

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
    let footerCount: number | null = null;
    for await (const line of readLines(this.path)) {
      const fail = (reason: string) => new StoreCorruptError(this.path, line.number, reason);
      if (footerCount !== null) throw fail('data after the footer');
      let parsed: unknown;
      try {
        parsed = JSON.parse(line.text);
      } catch {
        throw fail('not JSON');
      }
      if (seq === null) {
        const header = parsed as { format?: unknown; seq?: unknown };
        if (header.format !== FORMAT || typeof header.seq !== 'number') throw fail('not a snapshot header');
        seq = header.seq;
      } else if (Array.isArray(parsed)) {
        if (parsed.length !== 3 || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string') throw fail('malformed record');
        entries.push(parsed as SnapshotEntry);
      } else {
        const footer = parsed as { end?: unknown; count?: unknown };
        if (footer.end !== true || footer.count !== entries.length) throw fail('footer count does not match');
        footerCount = entries.length;
      }
    }
    if (seq === null || footerCount === null) throw new StoreCorruptError(this.path, 0, 'snapshot is incomplete');
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
      for (const entry of data.entries) {
        chunk.push(JSON.stringify(entry));
        count += 1;
        if (chunk.length === CHUNK_RECORDS) {
          await handle.write(`${chunk.join('\n')}\n`);
          chunk = [];
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
