import { Duplex } from 'node:stream';
import { realTimers, type Timers } from '../protocol/timers.js';

export interface Faults {
  /** Corrupt the checksum (LRC, or ZVT's CRC) of the Nth frame written (1-based). */
  corruptFrame?: number;
  /** Do not send the Nth ACK (1-based). */
  dropAck?: number;
  /** Split every frame in two, this many ms apart (a gap over 200 ms makes the receiver drop it). */
  splitGapMs?: number;
  /** Hold every write this many ms. */
  delayMs?: number;
  /** Stop writing anything after the Nth frame. */
  silentAfter?: number;
}

/**
 * Wraps a serial port and misbehaves on the way out as told: for tests and
 * demos of what the link layer and the bridge survive. Reads pass through.
 */
export class FaultyPort extends Duplex {
  private frames = 0;
  private acks = 0;

  constructor(
    private readonly inner: Duplex,
    private readonly faults: Faults,
    private readonly timers: Timers = realTimers,
  ) {
    super();
    inner.on('data', (chunk: Buffer) => this.push(chunk));
    inner.on('close', () => this.emit('close'));
    inner.on('end', () => this.push(null));
    inner.on('error', (error: Error) => this.emit('error', error));
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    const { faults } = this;
    const data = Buffer.from(chunk);
    if (data.length === 1 && data[0] === 0x06) {
      this.acks += 1;
      if (faults.dropAck === this.acks) return done();
    } else if (data[0] === 0x02 || (data[0] === 0x10 && data[1] === 0x02)) {
      // A frame: STX … LRC (svc, Transbank), or DLE STX … CRC (ZVT); its last byte is a checksum's.
      this.frames += 1;
      if (faults.silentAfter !== undefined && this.frames > faults.silentAfter) return done();
      if (faults.corruptFrame === this.frames) data[data.length - 1] ^= 0xff;
    }
    const send = () => {
      if (faults.splitGapMs !== undefined && data.length > 2) {
        const half = Math.floor(data.length / 2);
        this.inner.write(data.subarray(0, half));
        this.timers.setTimeout(() => this.inner.write(data.subarray(half)), faults.splitGapMs);
      } else {
        this.inner.write(data);
      }
      done();
    };
    if (faults.delayMs) this.timers.setTimeout(send, faults.delayMs);
    else send();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.inner.destroy();
    done(error);
  }
}
