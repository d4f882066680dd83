import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { LineError } from '../../errors.js';
import { hex } from '../frame.js';
import { realTimers, type Timers } from '../timers.js';
import { ApduReader, decodeApdu, encodeApdu, type Apdu } from './apdu.js';
import { ACK, encodeSerialFrame, NAK, SerialFrameReader, type SerialEvent } from './serial-frame.js';

// The two lines ZVT runs on (PA00P016 §3, §4), one interface for both: the
// application sends APDUs and hears APDUs, whatever carries them.

/** T2: how long a sender waits for the ACK or NAK of a frame (PA00P016 §3.4.2). */
export const T2_MS = 5000;
/** T3: how long the rest of an APDU cut in pieces may take on TCP (PA00P016 §5.2.5, case b). */
export const T3_MS = 5000;

export interface ZvtLineOptions {
  timers?: Timers;
  /** Each byte string in hex, at debug level. */
  debug?: (line: string) => void;
  ackTimeoutMs?: number;
  partialTimeoutMs?: number;
}

/**
 * A line carrying APDUs. `send` resolves once the APDU is taken (serial:
 * its ACK came; TCP: written to the socket), and rejects with a
 * a LineError when it cannot be. Emits 'apdu' for each APDU received and
 * 'close' (with the cause) once, when the line goes.
 */
export interface ZvtLine extends EventEmitter {
  readonly transport: 'serial' | 'tcp';
  readonly isClosed: boolean;
  send(message: Apdu): Promise<void>;
  close(): void;
}

abstract class BaseLine extends EventEmitter implements ZvtLine {
  abstract readonly transport: 'serial' | 'tcp';
  protected readonly timers: Timers;
  private closed = false;

  constructor(
    protected readonly stream: Duplex,
    protected readonly options: ZvtLineOptions = {},
  ) {
    super();
    this.timers = options.timers ?? realTimers;
    stream.on('data', (chunk: Buffer) => {
      if (this.closed) return;
      this.options.debug?.(`rx ${hex(chunk)}`);
      this.received(chunk);
    });
    const gone = () =>
      this.shutdown(new LineError('DISCONNECTED', `the ${this.transport === 'tcp' ? 'connection' : 'line'} closed`));
    stream.on('close', gone);
    stream.on('end', gone);
    stream.on('error', (error: Error) =>
      this.shutdown(new LineError('LINE_FAILED', `the line failed: ${error.message}`, { cause: error })),
    );
  }

  get isClosed(): boolean {
    return this.closed;
  }

  abstract send(message: Apdu): Promise<void>;
  protected abstract received(chunk: Buffer): void;
  protected abstract stopped(error: LineError): void;

  close(): void {
    this.shutdown(new LineError('DISCONNECTED', 'the line was closed'));
  }

  protected write(bytes: Buffer, callback?: (error?: Error | null) => void): void {
    this.options.debug?.(`tx ${hex(bytes)}`);
    this.stream.write(bytes, callback);
  }

  protected deliver(message: Apdu): void {
    this.emit('apdu', message);
  }

  protected shutdown(error: LineError): void {
    if (this.closed) return;
    this.closed = true;
    this.stopped(error);
    if (!this.stream.destroyed) this.stream.destroy();
    this.emit('close', error);
  }
}

interface Outgoing {
  frame: Buffer;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * The serial line (PA00P016 §3): every frame is answered ACK or NAK before
 * it is worked; a sender repeats a frame on NAK or after T2 without an
 * answer, twice at most, then reports a transmission error. A frame sent
 * again because our ACK was lost (the same bytes, nothing sent by us in
 * between) is ACKed again and not delivered twice.
 */
export class SerialZvtLine extends BaseLine {
  readonly transport = 'serial' as const;
  private readonly reader: SerialFrameReader;
  private readonly queue: Outgoing[] = [];
  private current: { outgoing: Outgoing; attempt: number; timer: unknown } | null = null;
  private lastReceived: Buffer | null = null;

  constructor(stream: Duplex, options: ZvtLineOptions = {}) {
    super(stream, options);
    this.reader = new SerialFrameReader((event) => this.onEvent(event), this.timers);
  }

  send(message: Apdu): Promise<void> {
    if (this.isClosed) return Promise.reject(new LineError('DISCONNECTED', 'the line is closed'));
    const frame = encodeSerialFrame(encodeApdu(message));
    return new Promise((resolve, reject) => {
      this.queue.push({ frame, resolve, reject });
      if (!this.current) this.next();
    });
  }

  protected received(chunk: Buffer): void {
    this.reader.push(chunk);
  }

  private next(): void {
    const outgoing = this.queue.shift();
    if (!outgoing) return;
    this.current = { outgoing, attempt: 0, timer: null };
    this.transmit();
  }

  private transmit(): void {
    const current = this.current!;
    current.attempt += 1;
    this.lastReceived = null; // a frame like the last one received is, after ours, a new one
    current.timer = this.timers.setTimeout(
      () => this.repeatOrFail('no ACK within T2'),
      this.options.ackTimeoutMs ?? T2_MS,
    );
    this.write(current.outgoing.frame);
  }

  private repeatOrFail(why: string): void {
    const current = this.current!;
    this.timers.clearTimeout(current.timer);
    if (current.attempt < 3) return this.transmit();
    this.current = null;
    current.outgoing.reject(
      new LineError('LINE_FAILED', `transmission error: ${why}, after ${current.attempt} tries`, {
        disconnected: false,
      }),
    );
    this.next();
  }

  private onEvent(event: SerialEvent): void {
    if (this.isClosed) return;
    switch (event.type) {
      case 'ack': {
        if (!this.current) return;
        this.timers.clearTimeout(this.current.timer);
        const { outgoing } = this.current;
        this.current = null;
        outgoing.resolve();
        return this.next();
      }
      case 'nak':
        if (this.current) this.repeatOrFail('NAK');
        return;
      case 'bad-frame':
        this.options.debug?.(`bad frame (${event.reason}): NAK`);
        return this.write(Buffer.of(NAK));
      case 'noise':
        this.options.debug?.(`${event.bytes} stray byte(s) ignored`);
        return;
      case 'frame': {
        let message: Apdu;
        try {
          message = decodeApdu(event.apdu);
        } catch (error) {
          this.options.debug?.(`frame refused (${(error as Error).message}): NAK`);
          return this.write(Buffer.of(NAK));
        }
        this.write(Buffer.of(ACK));
        const repeat = this.lastReceived !== null && this.lastReceived.equals(event.apdu);
        this.lastReceived = event.apdu;
        if (repeat) return this.options.debug?.('the same frame again (our ACK was lost): ACKed, not worked twice');
        this.deliver(message);
      }
    }
  }

  protected stopped(error: LineError): void {
    this.reader.destroy();
    if (this.current) {
      this.timers.clearTimeout(this.current.timer);
      this.current.outgoing.reject(error);
      this.current = null;
    }
    for (const outgoing of this.queue.splice(0)) outgoing.reject(error);
  }
}

/**
 * The TCP line (PA00P016 §4): bare APDUs, in any pieces. An APDU whose rest
 * does not come within T3 ends the connection (PA00P016 §5.2.5, case b).
 */
export class TcpZvtLine extends BaseLine {
  readonly transport = 'tcp' as const;
  private readonly reader = new ApduReader();
  private partialTimer: unknown = null;

  constructor(stream: Duplex, options: ZvtLineOptions = {}) {
    super(stream, options);
    // Each APDU goes at once: answers are a few bytes, and Nagle's algorithm would hold one behind the
    // peer's delayed ACK (40 ms on Linux), eating into T3.
    (stream as Duplex & { setNoDelay?: (noDelay: boolean) => void }).setNoDelay?.(true);
  }

  send(message: Apdu): Promise<void> {
    if (this.isClosed) return Promise.reject(new LineError('DISCONNECTED', 'the connection is closed'));
    return new Promise((resolve, reject) =>
      this.write(encodeApdu(message), (error) =>
        error ? reject(new LineError('LINE_FAILED', `could not send: ${error.message}`, { cause: error })) : resolve(),
      ),
    );
  }

  protected received(chunk: Buffer): void {
    let complete: Apdu[];
    try {
      complete = this.reader.push(chunk);
    } catch (error) {
      return this.shutdown(
        new LineError('LINE_FAILED', `unreadable APDU: ${(error as Error).message}`, { cause: error }),
      );
    }
    this.clearPartial();
    if (this.reader.partial)
      this.partialTimer = this.timers.setTimeout(
        () => this.shutdown(new LineError('LINE_FAILED', 'the rest of an APDU did not come within T3')),
        this.options.partialTimeoutMs ?? T3_MS,
      );
    for (const message of complete) this.deliver(message);
  }

  private clearPartial(): void {
    if (this.partialTimer !== null) this.timers.clearTimeout(this.partialTimer);
    this.partialTimer = null;
  }

  protected stopped(): void {
    this.clearPartial();
  }
}
