import { createReadStream } from 'node:fs';

export interface Line {
  text: string;
  /** 1-based line number. */
  number: number;
  /** Byte offset of the line's first byte in the file. */
  offset: number;
  /** False for a last line that has no newline after it. */
  terminated: boolean;
}

/** Streams a file's lines without holding the whole file in one string. */
export async function* readLines(path: string): AsyncGenerator<Line> {
  let carry: Buffer = Buffer.alloc(0);
  let offset = 0;
  let number = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    const data = carry.length ? Buffer.concat([carry, chunk]) : chunk;
    let start = 0;
    let newline = data.indexOf(0x0a, start);
    while (newline !== -1) {
      number += 1;
      yield { text: data.toString('utf8', start, newline), number, offset, terminated: true };
      offset += newline - start + 1;
      start = newline + 1;
      newline = data.indexOf(0x0a, start);
    }
    carry = data.subarray(start);
  }
  if (carry.length > 0) {
    yield { text: carry.toString('utf8'), number: number + 1, offset, terminated: false };
  }
}
