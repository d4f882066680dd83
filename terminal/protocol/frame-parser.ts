import { Transform, type TransformCallback } from 'node:stream';
import { ACK, ETX, isPrintable, lrc, MAX_PAYLOAD, NAK, STX } from './frame.js';
import { realTimers, type Timers } from './timers.js';

/** What the line carried, one item each. */
export type LineEvent =
  | { type: 'frame'; payload: string }
  /** A complete frame whose LRC did not match: answer NAK. */
  | { type: 'bad-frame'; reason: 'lrc' | 'not-printable' | 'too-long' | 'gap' }
  | { type: 'ack' }
  | { type: 'nak' }
  /** Bytes outside any frame, discarded. */
  | { type: 'noise'; bytes: number };

/** More than this between two bytes of a frame drops the frame (and answers NAK). */
export const INTER_BYTE_GAP_MS = 200;

/**
 * Splits the serial byte stream into frames and control bytes (INTERFACE.md §9),
 * as one small Transform: it resynchronises on STX, discards bytes before it,
 * drops a frame whose bytes are more than 200 ms apart or that grows past
 * 1024 payload bytes, and checks the LRC. Emits LineEvent objects.
 *
 * The gap is timed, not noticed: a frame cut off and followed by silence is
 * dropped (and so NAKed) when the gap runs out, so the sender hears the NAK
 * before it retransmits, never together with the ACK of its next frame.
 */
export class FrameParser extends Transform {
  private frame: number[] | null = null;
  private awaitingLrc = false;
  private lastByteAt = 0;
  private noise = 0;
  private gapTimer: unknown = null;

  constructor(private readonly timers: Timers = realTimers) {
    super({ readableObjectMode: true });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const now = this.timers.now();
    this.disarmGap();
    for (const byte of chunk) this.consume(byte, now);
    this.flushNoise();
    if (this.frame) this.armGap();
    done();
  }

  override _destroy(error: Error | null, done: (error: Error | null) => void): void {
    this.disarmGap();
    done(error);
  }

  private armGap(): void {
    this.gapTimer = this.timers.setTimeout(() => {
      // Armed only while a frame is open, and disarmed before anything else can close it.
      this.gapTimer = null;
      this.frame = null;
      this.awaitingLrc = false;
      this.push({ type: 'bad-frame', reason: 'gap' } satisfies LineEvent);
    }, INTER_BYTE_GAP_MS + 1);
  }

  private disarmGap(): void {
    this.timers.clearTimeout(this.gapTimer); // clearing null does nothing
    this.gapTimer = null;
  }

  override _flush(done: TransformCallback): void {
    this.disarmGap();
    if (this.frame) this.push({ type: 'bad-frame', reason: 'gap' } satisfies LineEvent);
    this.flushNoise();
    done();
  }

  private consume(byte: number, now: number): void {
    if (this.frame && now - this.lastByteAt > INTER_BYTE_GAP_MS) {
      // The frame stalled: drop what there was and read this byte afresh.
      this.frame = null;
      this.awaitingLrc = false;
      this.push({ type: 'bad-frame', reason: 'gap' } satisfies LineEvent);
    }
    this.lastByteAt = now;
    if (!this.frame) {
      if (byte === STX) {
        this.flushNoise();
        this.frame = [];
      } else if (byte === ACK || byte === NAK) {
        this.flushNoise();
        this.push({ type: byte === ACK ? 'ack' : 'nak' } satisfies LineEvent);
      } else {
        this.noise += 1;
      }
      return;
    }
    if (this.awaitingLrc) {
      const payload = Buffer.from(this.frame);
      this.frame = null;
      this.awaitingLrc = false;
      if (lrc(payload) !== byte) this.push({ type: 'bad-frame', reason: 'lrc' } satisfies LineEvent);
      else if (!isPrintable(payload)) this.push({ type: 'bad-frame', reason: 'not-printable' } satisfies LineEvent);
      else this.push({ type: 'frame', payload: payload.toString('latin1') } satisfies LineEvent);
      return;
    }
    if (byte === ETX) {
      this.awaitingLrc = true;
      return;
    }
    if (byte === STX) {
      // A new frame starts inside one: resynchronise on it.
      this.push({ type: 'bad-frame', reason: 'gap' } satisfies LineEvent);
      this.frame = [];
      return;
    }
    this.frame.push(byte);
    if (this.frame.length > MAX_PAYLOAD) {
      this.frame = null;
      this.push({ type: 'bad-frame', reason: 'too-long' } satisfies LineEvent);
    }
  }

  private flushNoise(): void {
    if (this.noise > 0) this.push({ type: 'noise', bytes: this.noise } satisfies LineEvent);
    this.noise = 0;
  }
}
