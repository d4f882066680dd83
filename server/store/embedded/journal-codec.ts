import { crc32 } from 'node:zlib';
import type { Op } from './memory-state.js';
import { isStoredOp, opOf, storedOp } from './stored-spelling.js';

// One journal entry is one line of JSON: {"seq":N,"crc":"xxxxxxxx","ops":[..]}.
// The CRC-32 covers the exact bytes of the ops array as written, so a line
// is checked without re-serialising anything.

const LINE = /^\{"seq":(\d+),"crc":"([0-9a-f]{8})","ops":(.*)\}$/s;

export interface JournalEntry {
  seq: number;
  ops: Op[];
}

export function encodeEntry(seq: number, ops: readonly Op[]): string {
  const opsJson = JSON.stringify(ops.map(storedOp));
  return `{"seq":${seq},"crc":"${checksum(opsJson)}","ops":${opsJson}}\n`;
}

/** Decodes one line (without its newline); throws an Error saying what is wrong. */
export function decodeEntry(line: string): JournalEntry {
  const match = LINE.exec(line);
  if (!match) throw new Error('not a journal entry');
  const [, seqText, crc, opsJson] = match as unknown as [string, string, string, string];
  if (checksum(opsJson) !== crc) throw new Error('checksum mismatch');
  const ops: unknown = JSON.parse(opsJson);
  if (!Array.isArray(ops) || !ops.every(isStoredOp)) throw new Error('malformed operations');
  return { seq: Number(seqText), ops: ops.map(opOf) };
}

/** CRC-32 of the text's UTF-8 bytes (zlib.crc32 encodes a string as UTF-8 itself). */
function checksum(text: string): string {
  return crc32(text).toString(16).padStart(8, '0');
}
