import { createReadStream } from 'node:fs';
import { crc32 } from 'node:zlib';
import { StoreCorruptError } from '../errors.js';
import { readLineBatches } from './read-lines.js';
import {
  hex, isEntry, LEGACY_SNAPSHOT_FORMAT, LINE_PREFIX_CHARS, parseFooter, parseHeader, SNAPSHOT_FORMAT, type SnapshotEntry,
} from './snapshot-codec.js';

export interface ReadSnapshot {
  seq: number;
  entries: SnapshotEntry[];
  /** Written before snapshots were checksummed, so nothing was checked. */
  legacy?: boolean;
}

const SPACE = 0x20;
const NEWLINE = 0x0a;

/**
 * Loads a snapshot, checking every line's checksum and the file's, and
 * stops at the first damage with the file and line. Works on the bytes
 * read (checksums over buffer slices, one string conversion per chunk), so
 * that checking costs little next to parsing millions of records.
 */
export async function readSnapshotFile(path: string): Promise<ReadSnapshot> {
  const corrupt = (line: number, reason: string) => new StoreCorruptError(path, line, reason);
  let carry: Buffer = Buffer.alloc(0);
  let number = 0;
  let fileCrc = 0;
  let seq: number | null = null;
  let ended = false;
  const entries: SnapshotEntry[] = [];

  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    const data = carry.length ? Buffer.concat([carry, chunk]) : chunk;
    if (number === 0 && data.length > 0 && data[0] === 0x7b) return readLegacySnapshot(path); // '{': no checksums
    const lastNewline = data.lastIndexOf(NEWLINE);
    if (lastNewline === -1) {
      carry = data;
      continue;
    }
    // A newline byte never occurs inside a multi-byte UTF-8 sequence, so cutting there is safe.
    const lines = data.toString('utf8', 0, lastNewline).split('\n');
    const records: string[] = [];
    const firstRecordNumber = number + (seq === null ? 2 : 1);
    let start = 0;
    for (const line of lines) {
      number += 1;
      const end = data.indexOf(NEWLINE, start);
      if (ended) throw corrupt(number, 'data after the footer');
      if (end - start < LINE_PREFIX_CHARS || data[start + 8] !== SPACE) throw corrupt(number, 'no line checksum');
      if (hex(crc32(data.subarray(start + LINE_PREFIX_CHARS, end))) !== line.slice(0, 8)) throw corrupt(number, 'checksum mismatch');
      const json = line.slice(LINE_PREFIX_CHARS);
      if (seq === null) {
        const header = parseHeader(json);
        if (!header || header.format !== SNAPSHOT_FORMAT) throw corrupt(number, 'not a snapshot header');
        seq = header.seq;
      } else if (json.startsWith('{')) {
        const footer = parseFooter(json);
        if (!footer) throw corrupt(number, 'not a snapshot footer');
        if (footer.count !== entries.length + records.length) throw corrupt(number, `footer counts ${footer.count} records, the file holds ${entries.length + records.length}`);
        if (footer.crc !== hex(fileCrc)) throw corrupt(number, 'file checksum mismatch (a line was added, lost, moved or changed)');
        ended = true;
        continue;
      } else {
        records.push(json);
      }
      fileCrc = crc32(data.subarray(start, end + 1), fileCrc);
      start = end + 1;
    }
    parseRecords(records, firstRecordNumber, path, entries);
    carry = data.subarray(lastNewline + 1);
  }
  if (carry.length > 0) throw corrupt(number + 1, ended ? 'data after the footer' : 'an unfinished last line');
  if (seq === null || !ended) throw corrupt(number, 'snapshot is incomplete (no footer)');
  return { seq, entries };
}

/**
 * Parses consecutive record lines with one JSON.parse, appending to `into`;
 * when that fails, parses line by line to name the bad one. Each line's
 * checksum was already right, so this fails only on a snapshot written wrong.
 */
function parseRecords(lines: string[], firstNumber: number, path: string, into: SnapshotEntry[]): void {
  if (lines.length === 0) return;
  let parsed: unknown[];
  try {
    parsed = JSON.parse(`[${lines.join(',')}]`) as unknown[];
    if (parsed.length !== lines.length) throw new Error('a line held more than one value');
  } catch {
    parsed = lines.map((text, i) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new StoreCorruptError(path, firstNumber + i, 'not JSON');
      }
    });
  }
  for (const [i, entry] of parsed.entries()) {
    if (!isEntry(entry)) throw new StoreCorruptError(path, firstNumber + i, 'malformed record');
    into.push(entry);
  }
}

/**
 * A snapshot of the format before checksums: read as it is (nothing can be
 * checked beyond its shape and count), and marked so that the store
 * replaces it with a checksummed one soon after start-up.
 */
async function readLegacySnapshot(path: string): Promise<ReadSnapshot> {
  const entries: SnapshotEntry[] = [];
  let seq: number | null = null;
  let ended = false;
  for await (const batch of readLineBatches(path)) {
    for (const [i, text] of batch.lines.entries()) {
      const number = batch.firstNumber + i;
      if (ended) throw new StoreCorruptError(path, number, 'data after the footer');
      if (seq === null) {
        const header = parseHeader(text);
        if (!header || header.format !== LEGACY_SNAPSHOT_FORMAT) throw new StoreCorruptError(path, number, 'not a snapshot header');
        seq = header.seq;
      } else if (text.startsWith('{')) {
        if (parseFooter(text)?.count !== entries.length) throw new StoreCorruptError(path, number, 'footer count does not match');
        ended = true;
      } else {
        parseRecords([text], number, path, entries);
      }
    }
  }
  if (seq === null || !ended) throw new StoreCorruptError(path, 0, 'snapshot is incomplete');
  return { seq, entries, legacy: true };
}
