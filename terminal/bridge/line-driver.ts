import type { Duplex } from 'node:stream';
import { Link, type LinkError } from '../protocol/link.js';
import { realTimers, type Timers } from '../protocol/timers.js';

/** A serial port stream; a real one must be closed (not just destroyed) to release its lock. */
export type SerialLine = Duplex & { close?: (callback: (error?: Error | null) => void) => void; isOpen?: boolean };

export interface LineOptions {
  /** Opens the serial line (a real port, a pseudo-terminal, a mock). */
  open: () => Promise<SerialLine>;
  timers?: Timers;
  /** Between two cycles. */
  pollMs: number;
  /** Reopening the serial line: from this, doubling up to maxBackoffMs. */
  minBackoffMs: number;
  maxBackoffMs: number;
  log?: (line: string) => void;
  debug?: (line: string) => void;
}

/**
 * What every bridge does with its serial line, whatever the device's
 * messages: open it, run cycles on it until stopped, and when the line or
 * the device fails, close it and reopen it with backoff (reset once the
 * device answers a whole cycle). A change of the line's state is one log
 * line. The dialect's bridge says what a cycle is and reads the messages.
 */
export abstract class LineDriver {
  protected link: Link | null = null;
  protected stopped = false;
  protected readonly timers: Timers;
  protected readonly log: (line: string) => void;
  private port: SerialLine | null = null;
  private backoff: number;
  private lineDown: string | null = null;

  constructor(private readonly line: LineOptions) {
    this.timers = line.timers ?? realTimers;
    this.log = line.log ?? (() => undefined);
    this.backoff = line.minBackoffMs;
  }

  /** One exchange of work with the device; a throw is a fault of the line or the device. */
  protected abstract runCycle(): Promise<unknown>;
  /** A message the device sent. */
  protected abstract onPayload(payload: string): void;
  /** The line closed: whatever waits for the device fails with this. */
  protected abstract onLineClosed(error: LinkError): void;

  /** Runs cycles until stop(); reopens the line after a failure of the line or the device. */
  async run(): Promise<void> {
    while (!this.stopped) {
      try {
        if (!this.link || this.link.isClosed) await this.connect();
        while (!this.stopped && this.link && !this.link.isClosed) {
          await this.runCycle();
          // The device answered: the line works, whatever it did before.
          this.backoff = this.line.minBackoffMs;
          if (this.lineDown !== null) this.log('line up: the device answers again');
          this.lineDown = null;
          await this.sleep(this.line.pollMs);
        }
      } catch (error) {
        if (this.stopped) break;
        const cause = (error as Error).message;
        if (this.lineDown === null) this.log(`line down: ${cause}; reopening, backing off from ${this.backoff} ms to ${this.line.maxBackoffMs} ms`);
        this.lineDown = cause;
      }
      await this.disconnect();
      if (this.stopped) break;
      await this.sleep(this.backoff);
      this.backoff = Math.min(this.line.maxBackoffMs, this.backoff * 2);
    }
    await this.disconnect();
  }

  stop(): Promise<void> {
    this.stopped = true;
    return this.disconnect();
  }

  protected async ensureConnected(): Promise<Link> {
    if (!this.link || this.link.isClosed) await this.connect();
    return this.link!;
  }

  private async connect(): Promise<void> {
    const port = await this.line.open();
    this.port = port;
    this.link = new Link(port, { timers: this.timers, ...(this.line.debug ? { debug: this.line.debug } : {}) });
    this.link.on('message', (payload: string) => this.onPayload(payload));
    this.link.once('close', (error: LinkError) => this.onLineClosed(error));
    this.log('line open');
  }

  private async disconnect(): Promise<void> {
    const link = this.link;
    const port = this.port;
    this.link = null;
    this.port = null;
    if (link && !link.isClosed) link.close();
    if (!port) return;
    // Release the device path (a serial port holds a lock until closed), so that reopening it can succeed.
    if (port.close && port.isOpen !== false) await new Promise<void>((resolve) => port.close!(() => resolve()));
    if (!port.destroyed) port.destroy();
  }

  /** Whether the run loop is waiting out a pause (between cycles, or backing off): nothing of a cycle is under way. */
  get isAsleep(): boolean {
    return this.sleeping > 0;
  }

  private sleeping = 0;

  protected sleep(ms: number): Promise<void> {
    this.sleeping += 1;
    return new Promise((resolve) =>
      this.timers.setTimeout(() => {
        this.sleeping -= 1;
        resolve();
      }, ms),
    );
  }
}
