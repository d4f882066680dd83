import { stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { decodeEntry } from './journal-codec.js';
import { listJournalFiles, SNAPSHOT_FILE, unchecksummedSnapshotDisagreement } from './journal-files.js';
import { readLineBatches } from './read-lines.js';
import {
  hex,
  entryOf,
  UNCHECKSUMMED_SNAPSHOT_FORMAT,
  openCheckedLine,
  parseFooter,
  parseHeader,
  SNAPSHOT_FORMAT,
  type SnapshotEntry,
} from './snapshot-codec.js';

// The operator's check of a data directory: every damaged line of the
// snapshot and the journal, found the way start-up would find them but
// without stopping at the first, and without changing anything. The repair
// (store-repair.ts) works from this report.

export interface Damage {
  file: string;
  line: number;
  reason: string;
}

export interface SnapshotReport {
  path: string;
  /** 'legacy' (the word the --json report has always used): an svc-snapshot/1 file, written before snapshots had checksums. */
  format: 'checksummed' | 'legacy';
  /** The journal position it covers; null when its header is damaged. */
  seq: number | null;
  /** Record lines that are intact. */
  records: number;
  /** Record lines that are damaged: what a repair drops. */
  damagedRecords: number;
  damage: Damage[];
}

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

/** Every damaged line of a snapshot; null when there is none. */
export async function checkSnapshot(
  path: string,
  onRecord?: (entry: SnapshotEntry) => void,
): Promise<SnapshotReport | null> {
  const exists = await stat(path).then(
    () => true,
    () => false,
  );
  if (!exists) return null;
  const scan = new SnapshotScan(path, onRecord);
  for await (const batch of readLineBatches(path))
    for (const [i, text] of batch.lines.entries())
      scan.line(batch.firstNumber + i, text, !batch.lastTerminated && i === batch.lines.length - 1);
  return scan.end();
}

/** A snapshot read line by line: what each line is, and what is wrong with it. */
class SnapshotScan {
  readonly report: SnapshotReport;
  private fileCrc = 0;
  private recordLines = 0;
  private footerAt = 0;
  private last = 0;
  private firstLine = '';

  constructor(
    private readonly path: string,
    private readonly onRecord?: (entry: SnapshotEntry) => void,
  ) {
    this.report = { path, format: 'checksummed', seq: null, records: 0, damagedRecords: 0, damage: [] };
  }

  private flag(line: number, reason: string): void {
    this.report.damage.push({ file: this.path, line, reason });
  }

  line(number: number, text: string, unfinished: boolean): void {
    this.last = number;
    this.noticeFormat(number, text);
    if (unfinished) return this.flag(number, 'an unfinished last line');
    if (this.footerAt) return this.flag(number, 'data after the footer');
    const json = this.report.format === 'checksummed' ? this.opened(number, text) : text;
    if (json === undefined) return;
    if (number === 1) this.header(json);
    else if (json.startsWith('{')) return this.footer(number, json);
    else this.record(number, json);
    this.fileCrc = crc32(`${text}\n`, this.fileCrc);
  }

  end(): SnapshotReport {
    if (!this.footerAt) this.flag(this.last, 'snapshot is incomplete (no footer)');
    return this.report;
  }

  /** The format, from the first line and, for an old header, from the second. */
  private noticeFormat(number: number, text: string): void {
    if (number === 1) {
      this.firstLine = text;
      if (text.startsWith('{')) this.report.format = 'legacy';
    }
    if (number === 2 && this.report.format === 'legacy' && 'json' in openCheckedLine(text)) {
      // A header of the old format over checksummed lines: the header was
      // changed (old snapshots carry no line checksums). Read as the
      // checksummed snapshot it is, so its intact records are kept.
      this.report.format = 'checksummed';
      this.report.seq = null;
      this.report.damage.length = 0;
      this.flag(1, 'a header of the old format (no checksums) before checksummed lines: the header was changed');
      this.fileCrc = crc32(`${this.firstLine}\n`);
    }
  }

  /** A checksummed line's JSON; undefined (flagged) when its checksum fails. */
  private opened(number: number, text: string): string | undefined {
    const opened = openCheckedLine(text);
    if ('json' in opened) return opened.json;
    // Past the header, a damaged line not shaped like the footer was a record.
    if (number > 1 && !text.slice(9).startsWith('{')) {
      this.recordLines += 1;
      this.report.damagedRecords += 1;
    }
    this.flag(number, opened.damage);
    this.fileCrc = crc32(`${text}\n`, this.fileCrc);
    return undefined;
  }

  private header(json: string): void {
    const header = parseHeader(json);
    const expected = this.report.format === 'legacy' ? UNCHECKSUMMED_SNAPSHOT_FORMAT : SNAPSHOT_FORMAT;
    if (header?.format === expected) this.report.seq = header.seq;
    else this.flag(1, 'not a snapshot header');
  }

  private footer(number: number, json: string): void {
    this.footerAt = number;
    const footer = parseFooter(json);
    if (!footer) this.flag(number, 'not a snapshot footer');
    else if (footer.count !== this.recordLines)
      this.flag(number, `footer counts ${footer.count} records, the file holds ${this.recordLines}`);
    else if (this.report.format === 'checksummed' && footer.crc !== hex(this.fileCrc))
      this.flag(number, 'file checksum mismatch (a line was added, lost, moved or changed)');
  }

  private record(number: number, json: string): void {
    this.recordLines += 1;
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      this.flag(number, 'not JSON');
    }
    const record = entryOf(value);
    if (value !== undefined && !record) this.flag(number, 'malformed record');
    if (!record) this.report.damagedRecords += 1;
    else {
      this.report.records += 1;
      this.onRecord?.(record);
    }
  }
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
