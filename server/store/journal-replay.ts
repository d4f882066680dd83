import { open } from 'node:fs/promises';
import { StoreCorruptError } from '../errors.js';
import { decodeEntry, type JournalEntry } from './journal-codec.js';
import { listJournalFiles } from './journal-files.js';
import { offsetInBatch, readLineBatches } from './read-lines.js';

export interface ReplayResult {
  lastSeq: number;
  applied: number;
  /** Set when a torn last line was dropped. */
  droppedTornLine?: { file: string; line: number };
}

/**
 * Feeds every journal entry after `snapshotSeq` to `apply`, in order.
 * Only the very last line of the newest file may be damaged (a write torn
 * by a crash, never acknowledged): it is cut off the file. Damage anywhere
 * else, or a gap in the sequence, stops start-up with the file and line.
 */
export async function replayJournal(
  dir: string,
  snapshotSeq: number,
  apply: (entry: JournalEntry) => void,
): Promise<ReplayResult> {
  const files = await listJournalFiles(dir);
  let lastSeq = snapshotSeq;
  let applied = 0;
  let droppedTornLine: ReplayResult['droppedTornLine'];

  for (const [index, file] of files.entries()) {
    const isNewest = index === files.length - 1;
    let damaged: { number: number; offset: number; reason: string } | null = null;
    for await (const batch of readLineBatches(file.path)) {
      for (const [i, text] of batch.lines.entries()) {
        const number = batch.firstNumber + i;
        if (damaged) throw new StoreCorruptError(file.path, damaged.number, damaged.reason);
        let entry: JournalEntry;
        try {
          entry = decodeEntry(text);
        } catch (error) {
          damaged = { number, offset: offsetInBatch(batch, i), reason: (error as Error).message };
          continue;
        }
        if (entry.seq <= snapshotSeq && lastSeq === snapshotSeq) continue; // already in the snapshot
        if (entry.seq !== lastSeq + 1) {
          throw new StoreCorruptError(file.path, number, `sequence gap: expected ${lastSeq + 1}, found ${entry.seq}`);
        }
        apply(entry);
        lastSeq = entry.seq;
        applied += 1;
      }
    }
    if (damaged) {
      if (!isNewest) throw new StoreCorruptError(file.path, damaged.number, damaged.reason);
      await truncateDurably(file.path, damaged.offset);
      droppedTornLine = { file: file.path, line: damaged.number };
    }
  }
  return { lastSeq, applied, ...(droppedTornLine ? { droppedTornLine } : {}) };
}

async function truncateDurably(path: string, length: number): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.truncate(length);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
