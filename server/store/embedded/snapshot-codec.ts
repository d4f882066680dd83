import { crc32 } from 'node:zlib';
import type { StoredRecord } from '../store.js';
import type { RowClaim } from './row-claims.js';
import { claimOf, isStoredRowClaim, storedClaim, type StoredRowClaim } from './stored-spelling.js';

// A snapshot is JSON lines: a header, one line per record, a footer. Every
// line carries the CRC-32 of its JSON (8 hex digits and a space before it),
// and the footer carries the CRC-32 of every byte before it, header
// included, and the count of records. So a flipped byte fails its line, and
// a line dropped, repeated or moved, or a header's seq changed, fails the
// file's checksum.

/** A record of a snapshot: with the claim kept with its row (row-claims.ts), when it has one. */
export type SnapshotEntry = [collection: string, id: string, value: StoredRecord, claim?: RowClaim];

/** A record's line as written: the claim in its stored spelling (stored-spelling.ts). */
type SnapshotLine = [collection: string, id: string, value: StoredRecord, claim?: StoredRowClaim];

/** The JSON of a record's line. */
export function entryJson(entry: SnapshotEntry): string {
  return JSON.stringify(entry.length === 4 ? [entry[0], entry[1], entry[2], storedClaim(entry[3]!)] : entry);
}

/** A record read back from its line's JSON value, or undefined when the value is not one. */
export function entryOf(value: unknown): SnapshotEntry | undefined {
  if (!isEntry(value)) return undefined;
  return value.length === 4 ? [value[0], value[1], value[2], claimOf(value[3]!)] : (value as SnapshotEntry);
}

export const SNAPSHOT_FORMAT = 'svc-snapshot/2';
/** Written before snapshots were checksummed: lines of bare JSON. Still read, never written. */
export const UNCHECKSUMMED_SNAPSHOT_FORMAT = 'svc-snapshot/1';

/** Characters before a line's JSON: the checksum and a space. */
export const LINE_PREFIX_CHARS = 9;

export function hex(crc: number): string {
  return crc.toString(16).padStart(8, '0');
}

/** One line (without its newline) carrying the checksum of `json`. */
export function checkedLine(json: string): string {
  return `${hex(crc32(json))} ${json}`;
}

const PLACEHOLDER = '00000000 ';
const HEX_DIGITS = Buffer.from('0123456789abcdef');

/**
 * Lines for many JSON texts at once, as the bytes to write: the text is
 * encoded once with room for each checksum, and each checksum is computed
 * over its line's bytes and written into that room, rather than encoding
 * every line a second time to checksum it.
 */
export function checkedLines(jsons: readonly string[]): Buffer {
  if (jsons.length === 0) return Buffer.alloc(0); // no lines, not one empty line
  const text = `${PLACEHOLDER}${jsons.join(`\n${PLACEHOLDER}`)}\n`;
  const bytes = Buffer.from(text, 'utf8');
  // Only ASCII text is as long in characters as in bytes: then a line's bytes end where its characters do.
  const ascii = bytes.length === text.length;
  let start = 0;
  for (const json of jsons) {
    const from = start + LINE_PREFIX_CHARS;
    const end = ascii ? from + json.length : bytes.indexOf(0x0a, from);
    let crc = crc32(bytes.subarray(from, end));
    for (let i = 7; i >= 0; i -= 1) {
      bytes[start + i] = HEX_DIGITS[crc & 15]!;
      crc >>>= 4;
    }
    start = end + 1;
  }
  return bytes;
}

export function headerJson(seq: number): string {
  return JSON.stringify({ format: SNAPSHOT_FORMAT, seq });
}

export function footerJson(count: number, fileCrc: number): string {
  return JSON.stringify({ end: true, count, crc: hex(fileCrc) });
}

/** The JSON of a checked line, or why it is damaged. */
export function openCheckedLine(line: string): { json: string } | { damage: string } {
  if (!/^[0-9a-f]{8} /.test(line)) return { damage: 'no line checksum' };
  const json = line.slice(LINE_PREFIX_CHARS);
  return hex(crc32(json)) === line.slice(0, 8) ? { json } : { damage: 'checksum mismatch' };
}

export function parseHeader(json: string): { format: string; seq: number } | null {
  try {
    const header = JSON.parse(json) as { format?: unknown; seq?: unknown };
    const known = header.format === SNAPSHOT_FORMAT || header.format === UNCHECKSUMMED_SNAPSHOT_FORMAT;
    return known && Number.isSafeInteger(header.seq) && (header.seq as number) >= 0
      ? { format: header.format as string, seq: header.seq as number }
      : null;
  } catch {
    return null;
  }
}

export function parseFooter(json: string): { count: number; crc?: string } | null {
  try {
    const footer = JSON.parse(json) as { end?: unknown; count?: unknown; crc?: unknown };
    if (footer.end !== true || !Number.isSafeInteger(footer.count)) return null;
    return { count: footer.count as number, ...(typeof footer.crc === 'string' ? { crc: footer.crc } : {}) };
  } catch {
    return null;
  }
}

/** Whether a line's JSON value is a record's line. */
export function isEntry(value: unknown): value is SnapshotLine {
  return (
    Array.isArray(value) &&
    (value.length === 3 || (value.length === 4 && isStoredRowClaim(value[3]))) &&
    typeof value[0] === 'string' &&
    typeof value[1] === 'string' &&
    typeof value[2] === 'object' &&
    value[2] !== null
  );
}
