import { stat } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
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

// The check of a snapshot file, line by line: what each line is (header,
// record, footer) and what is wrong with it, without stopping at the first
// damage. Start-up (snapshot-reader.ts) and the operator's check
// (store-check.ts) both read a snapshot through it.

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
