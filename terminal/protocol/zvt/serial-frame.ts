import { frameChecksum } from './crc.js';
import { ACK, ETX, NAK, STX } from '../control-bytes.js';
export { ACK, ETX, NAK, STX };

// A ZVT frame on a serial line (PA00P016 §3.1): DLE STX, the APDU with
// every DLE in it doubled, DLE ETX, and the CRC low byte, high byte (not
// stuffed). Each frame is answered with ACK or NAK before it is worked.

export const DLE = 0x10;
/** T1: the most time between two bytes of a frame (PA00P016 §3.4.1). */
export const T1_MS = 200;

export function encodeSerialFrame(apduBytes: Uint8Array): Buffer {
  const stuffed: number[] = [];
  for (const byte of apduBytes) {
    stuffed.push(byte);
    if (byte === DLE) stuffed.push(DLE);
  }
  return Buffer.concat([Buffer.of(DLE, STX), Buffer.from(stuffed), Buffer.of(DLE, ETX), frameChecksum(apduBytes)]);
}

/** What the receiving end of a serial line makes of the bytes. */
export type SerialEvent =
  | { type: 'frame'; apdu: Buffer }
  | { type: 'ack' }
  | { type: 'nak' }
  /** A frame that cannot be taken: it is answered with NAK. */
  | { type: 'bad-frame'; reason: string }
  /** Bytes outside a frame that are neither ACK nor NAK. */
  | { type: 'noise'; bytes: number };

type Phase = 'idle' | 'start' | 'data' | 'escape' | 'crc-low' | 'crc-high';

/**
 * Reads frames, ACKs and NAKs out of serial bytes as they come. A frame
 * whose bytes stop for T1 is given up as bad (the caller NAKs it), as is
 * one whose CRC is wrong or that carries a DLE followed by anything but
 * DLE or ETX.
 */
export class SerialFrameReader {
  private phase: Phase = 'idle';
  // Stryker disable next-line ArrayDeclaration: a frame's data is started afresh at its STX, whatever was there
  private data: number[] = [];
  private crcLow = 0;
  private noise = 0;

  constructor(
    private readonly emit: (event: SerialEvent) => void,
    private readonly timers?: {
      setTimeout(callback: () => void, ms: number): unknown;
      clearTimeout(handle: unknown): void;
    },
  ) {}

  private gap: unknown = null;

  push(chunk: Uint8Array): void {
    for (const byte of chunk) this.byte(byte);
    this.flushNoise();
    this.armGap();
  }

  /** Stops the T1 timer (the line is gone). */
  destroy(): void {
    // Clearing no timer (null) does nothing.
    this.timers?.clearTimeout(this.gap);
    this.gap = null;
  }

  private armGap(): void {
    if (!this.timers) return;
    this.timers.clearTimeout(this.gap);
    this.gap =
      this.phase === 'idle'
        ? null
        : this.timers.setTimeout(() => {
            this.gap = null;
            this.fail(`no byte for ${T1_MS} ms inside a frame (T1)`);
          }, T1_MS);
  }

  private byte(byte: number): void {
    switch (this.phase) {
      case 'idle':
        if (byte === DLE) return void (this.phase = 'start');
        if (byte === ACK || byte === NAK) {
          this.flushNoise();
          return this.emit({ type: byte === ACK ? 'ack' : 'nak' });
        }
        this.noise += 1;
        return;
      case 'start':
        if (byte === STX) {
          this.flushNoise();
          this.data = [];
          return void (this.phase = 'data');
        }
        this.noise += 2;
        this.phase = 'idle';
        return;
      case 'data':
        if (byte === DLE) return void (this.phase = 'escape');
        this.data.push(byte);
        return;
      case 'escape':
        if (byte === DLE) {
          this.data.push(DLE);
          return void (this.phase = 'data');
        }
        if (byte === ETX) return void (this.phase = 'crc-low');
        return this.fail(`DLE followed by ${byte.toString(16).padStart(2, '0')} inside a frame`);
      case 'crc-low':
        this.crcLow = byte;
        this.phase = 'crc-high';
        return;
      case 'crc-high': {
        this.phase = 'idle';
        const apdu = Buffer.from(this.data);
        const expected = frameChecksum(apdu);
        if (expected[0] !== this.crcLow || expected[1] !== byte)
          return this.emit({ type: 'bad-frame', reason: 'CRC mismatch' });
        return this.emit({ type: 'frame', apdu });
      }
    }
  }

  private fail(reason: string): void {
    this.phase = 'idle';
    // Stryker disable next-line ArrayDeclaration: the next frame starts its data afresh at its STX; this only lets the old go
    this.data = [];
    this.emit({ type: 'bad-frame', reason });
  }

  private flushNoise(): void {
    if (this.noise === 0) return;
    const bytes = this.noise;
    this.noise = 0;
    this.emit({ type: 'noise', bytes });
  }
}
