import { stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeEntry } from './journal-codec.js';
import { listJournalFiles, SNAPSHOT_FILE, unchecksummedSnapshotDisagreement } from './journal-files.js';
import { readLineBatches } from './read-lines.js';
import { checkSnapshot, type Damage, type SnapshotReport } from './snapshot-check.js';

// The operator's check of a data directory: every damaged line of the
// snapshot and the journal, found the way start-up would find them but
// without stopping at the first, and without changing anything. The repair
// (store-repair.ts) works from this report.

export interface JournalLine {
  file: string;
  line: number;
  /** Byte offset of the line in its file. */
  offset: number;
  /** Complete (with its newline), so possibly acknowledged. */
  complete: boolean;
  seq: number | null;
}

export interface JournalReport {
  files: Array<{ path: string; firstSeq: number; lines: number; bytes: number }>;
  /** Entries after the snapshot that start-up would replay. */
  entries: number;
  lastSeq: number;
  damage: Damage[];
  /** The first damaged entry, where a repair cuts the journal. */
  firstDamage: (JournalLine & { reason: string }) | null;
  /** Complete lines from the first damage on (it included): acknowledged entries a cut there loses. */
  completeLinesFromFirstDamage: number;
  /** A last line without its newline: a write cut short, dropped at start-up, not damage. */
  torn: Damage | null;
}

export interface StoreReport {
  dir: string;
  snapshot: SnapshotReport | null;
  /**
   * The journal position the snapshot covers: its header's, or, when that
   * is damaged, the one before the oldest journal file (a snapshot is
   * always taken at a rotation of the journal); null when unknowable.
   */
  snapshotSeq: number | null;
  journal: JournalReport;
  damaged: boolean;
}

export async function checkStore(dir: string): Promise<StoreReport> {
  const snapshot = await checkSnapshot(join(dir, SNAPSHOT_FILE));
  const journalFiles = await listJournalFiles(dir);
  if (snapshot?.format === 'legacy' && snapshot.seq !== null) {
    const disagreement = unchecksummedSnapshotDisagreement(snapshot.seq, journalFiles);
    if (disagreement) {
      snapshot.damage.unshift({ file: snapshot.path, line: 1, reason: disagreement });
      snapshot.seq = null; // the header is not to be trusted: the position comes from the journal
    }
  }
  const oldestJournal = journalFiles[0];
  const snapshotSeq = !snapshot ? 0 : (snapshot.seq ?? (oldestJournal ? oldestJournal.firstSeq - 1 : null));
  const journal = await checkJournal(dir, snapshotSeq ?? 0);
  return { dir, snapshot, snapshotSeq, journal, damaged: (snapshot?.damage.length ?? 0) + journal.damage.length > 0 };
}

/** Below this many free bytes, the disk counts as full. */
const FULL_DISK_BYTES = 64 * 1024;

/**
 * What most likely cut the last line short: a disk that is full now
 * refused the rest of a write (and the writer could not cut the part it
 * took off again); otherwise a crash in the middle of a write.
 */
async function tornCause(dir: string): Promise<string> {
  const free = await statfs(dir).then(
    (fs) => fs.bavail * fs.bsize,
    () => null,
  );
  return free !== null && free < FULL_DISK_BYTES
    ? `a write the full disk refused part of (${free} bytes free now)`
    : 'a write cut short by a crash (or by a disk that was full then)';
}

/** Every damaged line of the journal files, in sequence order. */
export async function checkJournal(dir: string, snapshotSeq: number): Promise<JournalReport> {
  const files = await listJournalFiles(dir);
  const report: JournalReport = {
    files: [],
    entries: 0,
    lastSeq: snapshotSeq,
    damage: [],
    firstDamage: null,
    completeLinesFromFirstDamage: 0,
    torn: null,
  };
  let expected = snapshotSeq + 1;
  let started = false; // past the entries the snapshot already holds
  for (const [index, file] of files.entries()) {
    const isNewest = index === files.length - 1;
    let offset = 0;
    let lines = 0;
    for await (const batch of readLineBatches(file.path)) {
      for (const [i, text] of batch.lines.entries()) {
        const line: JournalLine = {
          file: file.path,
          line: batch.firstNumber + i,
          offset,
          complete: batch.lastTerminated || i < batch.lines.length - 1,
          seq: null,
        };
        offset += Buffer.byteLength(text, 'utf8') + 1;
        lines += 1;
        if (report.firstDamage && line.complete) report.completeLinesFromFirstDamage += 1;
        let reason: string | null = null;
        try {
          line.seq = decodeEntry(text).seq;
        } catch (error) {
          reason = (error as Error).message;
        }
        if (reason !== null && !line.complete && isNewest) {
          report.torn = {
            file: file.path,
            line: line.line,
            reason: `${reason}: ${await tornCause(dir)} (a batch is acknowledged only once every byte of it is written and synced, so this one never was), dropped at start-up`,
          };
          continue;
        }
        if (reason === null && line.seq! <= snapshotSeq && !started) continue;
        if (reason === null && line.seq !== expected) reason = `sequence gap: expected ${expected}, found ${line.seq}`;
        if (reason !== null) {
          if (!line.complete) reason += ' (an unfinished line in a journal that was closed)';
          report.damage.push({ file: file.path, line: line.line, reason });
          if (!report.firstDamage) {
            report.firstDamage = { ...line, reason };
            report.completeLinesFromFirstDamage = line.complete ? 1 : 0;
          }
          // Report the damage that follows, not every line after this one.
          expected = line.seq === null ? expected + 1 : line.seq + 1;
          continue;
        }
        started = true;
        if (!report.firstDamage) {
          report.entries += 1;
          report.lastSeq = line.seq!;
        }
        expected = line.seq! + 1;
      }
    }
    report.files.push({ path: file.path, firstSeq: file.firstSeq, lines, bytes: (await stat(file.path)).size });
  }
  return report;
}
