import { LineError } from '../errors.js';
import type { Timers } from '../protocol/timers.js';

/**
 * The one answer a bridge waits for at a time: it ends with the message it
 * accepts, a timeout, or a failure (the line closing, a device error). The
 * timer goes with every ending, so a stopped bridge leaves none behind (a
 * sale's waits minutes).
 */
export class AnswerWaiter<M> {
  private waiting: {
    accepts: (message: M) => boolean;
    what: string;
    resolve: (message: M) => void;
    reject: (error: Error) => void;
    timer: unknown;
  } | null = null;

  constructor(private readonly timers: Timers) {}

  /** What is awaited, for a log line; null when nothing is. */
  get awaited(): string | null {
    return this.waiting?.what ?? null;
  }

  /** Sends, then waits at most timeoutMs for the first message `accepts` takes. */
  async request(
    send: () => Promise<void>,
    what: string,
    accepts: (message: M) => boolean,
    timeoutMs: number,
    noAnswer: string,
  ): Promise<M> {
    const answered = new Promise<M>((resolve, reject) => {
      const timer = this.timers.setTimeout(() => {
        this.waiting = null;
        reject(new LineError('NO_ANSWER', noAnswer));
      }, timeoutMs);
      this.waiting = { accepts, what, resolve, reject, timer };
    });
    // When sending fails, the line's close also rejects the answer nobody waits for yet.
    answered.catch(() => undefined);
    try {
      await send();
    } catch (error) {
      this.end();
      throw error;
    }
    return answered;
  }

  /** Offers a message from the device; answers whether it was the one awaited. */
  offer(message: M): boolean {
    const waiting = this.waiting;
    if (!waiting || !waiting.accepts(message)) return false;
    this.end();
    waiting.resolve(message);
    return true;
  }

  fail(error: Error): void {
    const waiting = this.waiting;
    this.end();
    waiting?.reject(error);
  }

  private end(): void {
    if (this.waiting) this.timers.clearTimeout(this.waiting.timer);
    this.waiting = null;
  }
}
