import { crc32 } from 'node:zlib';
import type { Op } from './memory-state.js';
import { isRowClaim } from './row-claims.js';

// One journal entry is one line of JSON: {"seq":N,"crc":"xxxxxxxx","ops":[..]}.
// The CRC-32 covers the exact bytes of the ops array as written, so a line
// is checked without re-serialising anything.

const LINE = /^\{"seq":(\d+),"crc":"([0-9a-f]{8})","ops":(.*)\}$/s;

export interface JournalEntry {
  seq: number;
  ops: Op[];
}

export function encodeEntry(seq: number, ops: readonly Op[]): string {
  const opsJson = JSON.stringify(ops);
  return `{"seq":${seq},"crc":"${checksum(opsJson)}","ops":${opsJson}}\n`;
}

/** Decodes one line (without its newline); throws an Error saying what is wrong. */
export function decodeEntry(line: string): JournalEntry {
  const match = LINE.exec(line);
  if (!match) throw new Error('not a journal entry');
  const [, seqText, crc, opsJson] = match as unknown as [string, string, string, string];
  if (checksum(opsJson) !== crc) throw new Error('checksum mismatch');
  const ops: unknown = JSON.parse(opsJson);
  if (!Array.isArray(ops) || !ops.every(isOp)) throw new Error('malformed operations');
  return { seq: Number(seqText), ops };
}

/** CRC-32 of the text's UTF-8 bytes (zlib.crc32 encodes a string as UTF-8 itself). */
function checksum(text: string): string {
  return crc32(text).toString(16).padStart(8, '0');
}

function isOp(value: unknown): value is Op {
  // A primitive or null has no string fields: refused by the first test.
  const op = value as Record<string, unknown> | null;
  if (typeof op?.c !== 'string' || typeof op.id !== 'string') return false;
  if (op.op === 'del') return true;
  return op.op === 'put' && typeof op.v === 'object' && op.v !== null && (op.k === undefined || isRowClaim(op.k));
}
