import { createReadStream } from 'node:fs';

/** Consecutive lines of a file, read in one chunk. */
export interface LineBatch {
  lines: string[];
  /** 1-based number of `lines[0]` in the file. */
  firstNumber: number;
  /** Byte offset of `lines[0]` in the file. */
  startOffset: number;
  /** False when the batch's last line is the file's last and has no newline. */
  lastTerminated: boolean;
}

/**
 * Streams a file's lines in batches, one per chunk read, without holding
 * the whole file in one string. One string conversion per chunk rather than
 * per line keeps loading millions of lines cheap.
 */
export async function* readLineBatches(path: string): AsyncGenerator<LineBatch> {
  let carry: Buffer = Buffer.alloc(0);
  let offset = 0;
  let number = 1;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    const data = carry.length ? Buffer.concat([carry, chunk]) : chunk;
    const lastNewline = data.lastIndexOf(0x0a);
    if (lastNewline === -1) {
      carry = data;
      continue;
    }
    // A newline byte never occurs inside a multi-byte UTF-8 sequence, so
    // cutting there is safe.
    const lines = data.toString('utf8', 0, lastNewline).split('\n');
    yield { lines, firstNumber: number, startOffset: offset, lastTerminated: true };
    number += lines.length;
    offset += lastNewline + 1;
    carry = data.subarray(lastNewline + 1);
  }
  if (carry.length > 0) {
    yield { lines: [carry.toString('utf8')], firstNumber: number, startOffset: offset, lastTerminated: false };
  }
}

/** Byte offset in the file of line `index` of a batch. */
export function offsetInBatch(batch: LineBatch, index: number): number {
  let offset = batch.startOffset;
  for (let i = 0; i < index; i += 1) offset += Buffer.byteLength(batch.lines[i]!, 'utf8') + 1;
  return offset;
}
