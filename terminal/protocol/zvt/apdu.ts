import { hex } from '../frame.js';
import { ProtocolError } from '../../errors.js';

/** A one-byte code as PA00P015 writes it (84 9C, bitmap 3B): two upper-case hex digits. */
export const codeHex = (code: number): string => code.toString(16).padStart(2, '0').toUpperCase();

// An APDU (PA00P016 §5.2): a 2-byte control field (CLASS INSTR of a
// command, CCRC APRC of an answer), a length, and the data block. A data
// block up to 254 bytes has a 1-byte length; a longer one has FF and then
// the length in 2 bytes, low byte first (up to 65535). The length counts
// the data block only, never a DLE added on a serial line.

export interface Apdu {
  /** CLASS (a command) or CCRC (an answer: 80 positive, 84 negative). */
  cls: number;
  /** INSTR (a command) or APRC (an answer: 00, or the error). */
  ins: number;
  data: Buffer;
}

export const MAX_DATA = 0xffff;

export function apdu(cls: number, ins: number, data: Uint8Array = Buffer.alloc(0)): Apdu {
  return { cls, ins, data: Buffer.from(data) };
}

export function encodeApdu({ cls, ins, data }: Apdu): Buffer {
  if (data.length > MAX_DATA)
    throw new ProtocolError('APDU_INVALID', `a data block is at most ${MAX_DATA} bytes, got ${data.length}`);
  const length = data.length <= 254 ? Buffer.of(data.length) : Buffer.of(0xff, data.length & 0xff, data.length >> 8);
  return Buffer.concat([Buffer.of(cls, ins), length, data]);
}

/** How many bytes the APDU starting `bytes` takes in all, or null while its header is incomplete. */
export function apduSize(bytes: Uint8Array): number | null {
  if (bytes.length < 3) return null;
  if (bytes[2] !== 0xff) return 3 + bytes[2]!;
  if (bytes.length < 5) return null;
  return 5 + (bytes[3]! | (bytes[4]! << 8));
}

/** One whole APDU; throws when the length field and the bytes disagree. */
export function decodeApdu(bytes: Uint8Array): Apdu {
  const size = apduSize(bytes);
  if (size === null) throw new ProtocolError('APDU_INVALID', `an APDU has at least 3 bytes, got ${bytes.length}`);
  if (size !== bytes.length)
    throw new ProtocolError('APDU_INVALID', `the length field says ${size} bytes in all, the APDU has ${bytes.length}`);
  const header = bytes[2] === 0xff ? 5 : 3;
  return apdu(bytes[0]!, bytes[1]!, bytes.subarray(header));
}

/**
 * APDUs out of a byte stream that comes in any pieces (TCP, PA00P016 §4):
 * split, coalesced, byte by byte. `push` answers every APDU completed.
 */
export class ApduReader {
  private buffered = Buffer.alloc(0);

  push(chunk: Uint8Array): Apdu[] {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : Buffer.from(chunk);
    const complete: Apdu[] = [];
    for (;;) {
      const size = apduSize(this.buffered);
      if (size === null || this.buffered.length < size) return complete;
      complete.push(decodeApdu(this.buffered.subarray(0, size)));
      this.buffered = this.buffered.subarray(size);
    }
  }

  /** Whether part of an APDU is waiting for the rest. */
  get partial(): boolean {
    return this.buffered.length > 0;
  }
}

/** `06 01 …` for the log. */
export function describe(message: Apdu): string {
  return hex(encodeApdu(message));
}
