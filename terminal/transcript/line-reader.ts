import { ETX, STX } from '../protocol/frame.js';

// The serial line read byte by byte, as a cash register under test sees it:
// no link layer in between, so what the other side sent is compared as it
// came, ACKs included.

export interface RawLine {
  write(data: Buffer): unknown;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer) => void): unknown;
}

export class LineReader {
  private buffered = Buffer.alloc(0);
  private waiting: (() => void) | null = null;
  private readonly onData = (chunk: Buffer) => {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    this.waiting?.();
  };

  constructor(private readonly line: RawLine) {
    line.on('data', this.onData);
  }

  close(): void {
    this.line.off('data', this.onData);
  }

  /** Resolves when the buffer holds what `enough` asks for (its length), or after `timeoutMs` with null. */
  private async until(enough: (bytes: Buffer) => number | null, timeoutMs: number): Promise<Buffer | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const length = enough(this.buffered);
      if (length !== null) {
        const taken = this.buffered.subarray(0, length);
        this.buffered = this.buffered.subarray(length);
        return Buffer.from(taken);
      }
      const left = deadline - Date.now();
      if (left <= 0) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiting = null;
    }
  }

  /** Exactly `count` bytes, or null (what did come stays readable with `rest`). */
  bytes(count: number, timeoutMs: number): Promise<Buffer | null> {
    return this.until((bytes) => (bytes.length >= count ? count : null), timeoutMs);
  }

  /** One frame, from its STX through its LRC; null when none began within `timeoutMs`. */
  frame(timeoutMs: number): Promise<Buffer | null> {
    return this.until((bytes) => {
      if (bytes[0] !== STX) return bytes.length > 0 ? 1 : null; // a stray byte: taken alone, the caller sees it
      const end = bytes.indexOf(ETX);
      return end >= 0 && bytes.length > end + 1 ? end + 2 : null;
    }, timeoutMs);
  }

  /** What has come and not been read. */
  rest(): Buffer {
    const taken = this.buffered;
    this.buffered = Buffer.alloc(0);
    return taken;
  }

  write(bytes: Buffer): void {
    this.line.write(bytes);
  }
}
