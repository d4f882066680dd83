import { createReadStream } from 'node:fs';
import { crc32 } from 'node:zlib';
import { appError, isAppError } from '../../errors.js';
import { readLineBatches } from './read-lines.js';
import { checkSnapshot } from './snapshot-check.js';
import {
  hex,
  entryOf,
  UNCHECKSUMMED_SNAPSHOT_FORMAT,
  LINE_PREFIX_CHARS,
  parseFooter,
  parseHeader,
  SNAPSHOT_FORMAT,
  type SnapshotEntry,
} from './snapshot-codec.js';

export interface ReadSnapshot {
  seq: number;
  entries: SnapshotEntry[];
  /** Written before snapshots were checksummed, so nothing was checked. */
  unchecksummed?: boolean;
}

const SPACE = 0x20;
const NEWLINE = 0x0a;

/**
 * Loads a snapshot and refuses it, naming the file and line, if any byte is
 * damaged. The file's checksum covers every byte before the footer, so it
 * alone is checked as the file is read (one pass over each chunk, at about
 * a tenth of the cost of checking each of a million lines); when it, or a
 * line's shape, is wrong, the lines are checked one by one to name the
 * damaged one (store-check.ts). Nothing is served before the footer checks.
 */
export async function readSnapshotFile(path: string): Promise<ReadSnapshot> {
  const damaged = async (line: number, reason: string) => {
    const first = (await checkSnapshot(path))?.damage[0];
    return appError('STORE_CORRUPT', path, first?.line ?? line, first?.reason ?? reason);
  };
  let carry: Buffer = Buffer.alloc(0);
  let number = 0;
  let fileCrc = 0;
  let seq: number | null = null;
  let ended = false;
  const entries: SnapshotEntry[] = [];

  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    const data = carry.length ? Buffer.concat([carry, chunk]) : chunk;
    if (number === 0 && data.length > 0 && data[0] === 0x7b) return readUnchecksummedSnapshot(path); // '{': no checksums
    const lastNewline = data.lastIndexOf(NEWLINE);
    if (lastNewline === -1) {
      carry = data;
      continue;
    }
    // A newline byte never occurs inside a multi-byte UTF-8 sequence, so cutting there is safe.
    const lines = data.toString('utf8', 0, lastNewline).split('\n');
    const records: string[] = [];
    const firstRecordNumber = number + (seq === null ? 2 : 1);
    let footerAt = -1;
    for (const line of lines) {
      number += 1;
      if (ended) throw await damaged(number, 'data after the footer');
      if (line.length < LINE_PREFIX_CHARS || line.charCodeAt(8) !== SPACE)
        throw await damaged(number, 'no line checksum');
      const json = line.slice(LINE_PREFIX_CHARS);
      if (seq === null) {
        const header = parseHeader(json);
        if (!header || header.format !== SNAPSHOT_FORMAT) throw await damaged(number, 'not a snapshot header');
        seq = header.seq;
      } else if (json.startsWith('{')) {
        footerAt = number;
        const footer = parseFooter(json);
        if (!footer) throw await damaged(number, 'not a snapshot footer');
        // The footer's own bytes are not in the file's checksum.
        fileCrc = crc32(data.subarray(0, data.lastIndexOf(NEWLINE, lastNewline - 1) + 1), fileCrc);
        if (footer.crc !== hex(fileCrc))
          throw await damaged(number, 'file checksum mismatch (a line was added, lost, moved or changed)');
        if (footer.count !== entries.length + records.length)
          throw await damaged(
            number,
            `footer counts ${footer.count} records, the file holds ${entries.length + records.length}`,
          );
        ended = true;
      } else {
        records.push(json);
      }
    }
    if (footerAt === -1) fileCrc = crc32(data.subarray(0, lastNewline + 1), fileCrc);
    try {
      parseRecords(records, firstRecordNumber, path, entries);
    } catch (error) {
      throw isAppError(error, 'STORE_CORRUPT') ? await damaged(Number(error.extra?.line), 'not JSON') : error;
    }
    carry = data.subarray(lastNewline + 1);
  }
  if (carry.length > 0) throw await damaged(number + 1, ended ? 'data after the footer' : 'an unfinished last line');
  if (seq === null || !ended) throw await damaged(number, 'snapshot is incomplete (no footer)');
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
        throw appError('STORE_CORRUPT', path, firstNumber + i, 'not JSON');
      }
    });
  }
  for (const [i, value] of parsed.entries()) {
    const entry = entryOf(value);
    if (!entry) throw appError('STORE_CORRUPT', path, firstNumber + i, 'malformed record');
    into.push(entry);
  }
}

/**
 * A snapshot of the format before checksums: read as it is (nothing can be
 * checked beyond its shape and count), and marked so that the store
 * replaces it with a checksummed one soon after start-up.
 */
async function readUnchecksummedSnapshot(path: string): Promise<ReadSnapshot> {
  const entries: SnapshotEntry[] = [];
  let seq: number | null = null;
  let ended = false;
  for await (const batch of readLineBatches(path)) {
    for (const [i, text] of batch.lines.entries()) {
      const number = batch.firstNumber + i;
      if (ended) throw appError('STORE_CORRUPT', path, number, 'data after the footer');
      if (seq === null) {
        const header = parseHeader(text);
        if (!header || header.format !== UNCHECKSUMMED_SNAPSHOT_FORMAT)
          throw appError('STORE_CORRUPT', path, number, 'not a snapshot header');
        seq = header.seq;
      } else if (text.startsWith('{')) {
        if (parseFooter(text)?.count !== entries.length)
          throw appError('STORE_CORRUPT', path, number, 'footer count does not match');
        ended = true;
      } else {
        parseRecords([text], number, path, entries);
      }
    }
  }
  if (seq === null || !ended) throw appError('STORE_CORRUPT', path, 0, 'snapshot is incomplete');
  return { seq, entries, unchecksummed: true };
}
