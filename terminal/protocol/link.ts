import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { ACK, encodeFrame, hex, NAK } from './frame.js';
import { FrameParser, type LineEvent } from './frame-parser.js';
import { realTimers, type Timers } from './timers.js';
import { LineError } from '../errors.js';

// INTERFACE.md §9, link: the receiver answers ACK after a good LRC and NAK after
// a bad one; the sender waits 2 s for it and tries 3 times in all.

export interface LinkOptions {
  timers?: Timers;
  ackTimeoutMs?: number;
  tries?: number;
  /** How long a repeat of the last frame counts as a retransmission (re-ACKed, not delivered). */
  duplicateWindowMs?: number;
  /** Frames in hex and link events, at debug level. */
  debug?: (line: string) => void;
}

interface Outgoing {
  payload: string;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * The link layer over any serial port stream (a real port, one end of a
 * pseudo-terminal, the mock binding). `send` delivers one frame and resolves
 * on its ACK; frames go out one at a time, in order. Received frames are
 * ACKed and emitted as 'message'; a frame repeated because our ACK was lost
 * is ACKed again and not emitted twice. Emits 'close' when the port goes.
 */
export class Link extends EventEmitter {
  private readonly parser: FrameParser;
  private readonly timers: Timers;
  private readonly ackTimeoutMs: number;
  private readonly tries: number;
  private readonly duplicateWindowMs: number;
  private readonly queue: Outgoing[] = [];
  private current: { outgoing: Outgoing; attempt: number; naks: number; timer: unknown } | null = null;
  private lastDelivered: { payload: string; at: number } | null = null;
  /** Whether we sent a frame since the last one delivered: then an identical frame is a new message. */
  private sentSinceDelivered = false;
  private closed = false;

  constructor(
    private readonly port: Duplex,
    private readonly options: LinkOptions = {},
  ) {
    super();
    this.timers = options.timers ?? realTimers;
    this.ackTimeoutMs = options.ackTimeoutMs ?? 2000;
    this.tries = options.tries ?? 3;
    this.duplicateWindowMs = options.duplicateWindowMs ?? this.ackTimeoutMs * this.tries + 1000;
    this.parser = new FrameParser(this.timers);
    port.on('data', (chunk: Buffer) => {
      this.options.debug?.(`rx ${hex(chunk)}`);
      this.parser.write(chunk);
    });
    this.parser.on('data', (event: LineEvent) => this.onLine(event));
    const onClose = () => this.shutdown(new LineError('DISCONNECTED', 'the serial line closed'));
    port.on('close', onClose);
    port.on('end', onClose);
    port.on('error', (error: Error) =>
      this.shutdown(new LineError('DISCONNECTED', `the serial line failed: ${error.message}`)),
    );
  }

  get isClosed(): boolean {
    return this.closed;
  }

  send(payload: string): Promise<void> {
    if (this.closed) return Promise.reject(new LineError('DISCONNECTED', 'the serial line is closed'));
    encodeFrame(payload); // throws now for what cannot be framed, rather than inside the queue
    return new Promise((resolve, reject) => {
      this.queue.push({ payload, resolve, reject });
      if (!this.current) this.next();
    });
  }

  close(): void {
    this.shutdown(new LineError('DISCONNECTED', 'the link was closed'));
  }

  private next(): void {
    const outgoing = this.queue.shift();
    if (!outgoing) return;
    this.current = { outgoing, attempt: 0, naks: 0, timer: null };
    this.transmit();
  }

  private transmit(): void {
    const current = this.current!;
    current.attempt += 1;
    const frame = encodeFrame(current.outgoing.payload);
    this.options.debug?.(`tx ${hex(frame)} (${current.outgoing.payload}, try ${current.attempt}/${this.tries})`);
    this.sentSinceDelivered = true;
    // Armed before the write: a line that answers within the write itself (an in-memory pair) must find it
    // to clear. Cleared when the frame is answered (ACK or NAK) or the link closes, so when it fires its
    // frame is the current one.
    current.timer = this.timers.setTimeout(
      () =>
        this.retryOrFail(
          new LineError(
            'LINK_TIMEOUT',
            `no ACK for ${current.outgoing.payload.slice(0, 4)} after ${this.tries} tries of ${this.ackTimeoutMs} ms`,
          ),
        ),
      this.ackTimeoutMs,
    );
    this.port.write(frame);
  }

  private retryOrFail(error: LineError): void {
    const current = this.current!;
    if (current.attempt < this.tries) return this.transmit();
    this.current = null;
    current.outgoing.reject(error);
    this.next();
  }

  private onLine(event: LineEvent): void {
    if (this.closed) return;
    switch (event.type) {
      case 'ack': {
        if (!this.current) return;
        const { outgoing, timer } = this.current;
        this.timers.clearTimeout(timer);
        this.current = null;
        outgoing.resolve();
        this.next();
        return;
      }
      case 'nak': {
        if (!this.current) return;
        this.timers.clearTimeout(this.current.timer);
        this.current.naks += 1;
        this.options.debug?.(`NAK for ${this.current.outgoing.payload.slice(0, 4)}`);
        this.retryOrFail(
          new LineError(
            'NAK_LIMIT',
            `${this.current.outgoing.payload.slice(0, 4)} was refused (NAK) ${this.current.naks} times`,
          ),
        );
        return;
      }
      case 'bad-frame':
        this.options.debug?.(`bad frame (${event.reason}): NAK`);
        this.port.write(Buffer.of(NAK));
        return;
      case 'noise':
        this.options.debug?.(`discarded ${event.bytes} bytes of noise`);
        return;
      case 'frame': {
        this.port.write(Buffer.of(ACK));
        const now = this.timers.now();
        // A peer repeats a frame only while it waits for our ACK: the same frame again, with
        // nothing sent by us in between, is that repeat. After a frame of ours, it is an answer.
        const repeat =
          !this.sentSinceDelivered &&
          this.lastDelivered !== null &&
          this.lastDelivered.payload === event.payload &&
          now - this.lastDelivered.at <= this.duplicateWindowMs;
        this.lastDelivered = { payload: event.payload, at: now };
        this.sentSinceDelivered = false;
        if (repeat) {
          this.options.debug?.(`duplicate ${event.payload.slice(0, 4)} re-acknowledged, not processed again`);
          return;
        }
        this.emit('message', event.payload);
      }
    }
  }

  private shutdown(error: LineError): void {
    if (this.closed) return;
    this.closed = true;
    this.parser.destroy(); // and with it the gap timer of a frame cut off
    if (this.current) {
      this.timers.clearTimeout(this.current.timer);
      this.current.outgoing.reject(error);
      this.current = null;
    }
    for (const outgoing of this.queue.splice(0)) outgoing.reject(error);
    this.emit('close', error);
  }
}
