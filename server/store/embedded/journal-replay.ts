import { stat } from 'node:fs/promises';
import { appError } from '../../errors.js';
import { truncateDurably } from '../../../contracts/common/fsync.js';
import { decodeEntry, type JournalEntry } from './journal-codec.js';
import { listJournalFiles } from './journal-files.js';
import { offsetInBatch, readLineBatches } from './read-lines.js';

export interface ReplayResult {
  lastSeq: number;
  applied: number;
  /** Set when a torn last line was dropped. */
  droppedTornLine?: { file: string; line: number };
  /** Bytes of the journal files on disk after the replay (any torn line cut off). */
  journalBytes: number;
  /** The newest journal file, when it ends with a complete line, so that new entries can follow in it. */
  continuable?: { name: string; bytes: number };
}

/**
 * Feeds every journal entry after `snapshotSeq` to `apply`, in order.
 *
 * A torn write is a line without its final newline: a crash cut the write
 * short, so the line was never acknowledged. Only that, as the very last
 * line of the newest file, is cut off the file. A complete line that fails
 * its checksum is damage to a write that may have been acknowledged, so it
 * stops start-up with the file and line, as does damage anywhere else or a
 * gap in the sequence.
 */
export async function replayJournal(
  dir: string,
  snapshotSeq: number,
  apply: (entry: JournalEntry) => void,
): Promise<ReplayResult> {
  const files = await listJournalFiles(dir);
  let lastSeq = snapshotSeq;
  let applied = 0;
  let journalBytes = 0;
  let droppedTornLine: ReplayResult['droppedTornLine'];

  let continuable: ReplayResult['continuable'];
  for (const [index, file] of files.entries()) {
    const isNewest = index === files.length - 1;
    let endsComplete = true;
    for await (const batch of readLineBatches(file.path)) {
      for (const [i, text] of batch.lines.entries()) {
        const number = batch.firstNumber + i;
        const torn = !batch.lastTerminated && i === batch.lines.length - 1;
        if (torn) endsComplete = false;
        let entry: JournalEntry;
        try {
          entry = decodeEntry(text);
        } catch (error) {
          const reason = (error as Error).message;
          if (!torn)
            throw appError('STORE_CORRUPT', file.path, number, `${reason} (a complete line, so not a torn write)`);
          if (!isNewest)
            throw appError(
              'STORE_CORRUPT',
              file.path,
              number,
              `${reason} (an unfinished line in a journal that was closed)`,
            );
          await truncateDurably(file.path, offsetInBatch(batch, i));
          droppedTornLine = { file: file.path, line: number };
          endsComplete = true;
          continue;
        }
        if (entry.seq <= snapshotSeq && lastSeq === snapshotSeq) continue; // already in the snapshot
        if (entry.seq !== lastSeq + 1) {
          throw appError(
            'STORE_CORRUPT',
            file.path,
            number,
            `sequence gap: expected ${lastSeq + 1}, found ${entry.seq}`,
          );
        }
        apply(entry);
        lastSeq = entry.seq;
        applied += 1;
      }
    }
    const bytes = (await stat(file.path)).size;
    journalBytes += bytes;
    if (isNewest && endsComplete) continuable = { name: file.name, bytes };
  }
  return {
    lastSeq,
    applied,
    journalBytes,
    ...(droppedTornLine ? { droppedTornLine } : {}),
    ...(continuable ? { continuable } : {}),
  };
}
