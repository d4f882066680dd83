import type { Link } from '../protocol/link.js';
import { realTimers, type Timers } from '../protocol/timers.js';
import { readJournalSync, writeJournalSync } from './journal-file.js';
import { LineError } from '../errors.js';

// What every emulated device is, whatever its dialect: a state kept in a
// journal as a real terminal keeps one in flash (written before the device
// answers, so the host never hears of a change a kill could lose), a line
// it answers on, and an operator. A dialect adds its messages and what they
// do to its state (device-state.ts, transbank/pos-state.ts).

export interface DeviceCoreOptions<S> {
  /** The journal; without it, everything is in memory. */
  statePath?: string;
  /** The state a journal holds (undefined: none yet), checked as this device's, or a new device's. */
  load(journal: S | undefined): S;
  timers?: Timers;
  log?: (line: string) => void;
}

export class DeviceCore<S> {
  readonly timers: Timers;
  readonly log: (line: string) => void;
  private current: S;
  private link: Link | null = null;
  private work: Promise<void> = Promise.resolve();

  constructor(private readonly options: DeviceCoreOptions<S>) {
    this.current = options.load(options.statePath ? readJournalSync<S>(options.statePath) : undefined);
    this.timers = options.timers ?? realTimers;
    this.log = options.log ?? (() => undefined);
  }

  get state(): S {
    return this.current;
  }

  /** The new state, written to the journal (when there is one) before anything depends on it. */
  commit(next: S): void {
    if (next === this.current) return;
    if (this.options.statePath) writeJournalSync(this.options.statePath, next);
    this.current = next;
  }

  /**
   * Speaks over this line from now on (the state outlives a line that goes
   * away): each request the host sends goes to `onRequest`, in turn when
   * `oneAtATime` (a terminal that works one request before the next), else
   * as it comes.
   */
  attach(link: Link, onRequest: (payload: string) => Promise<void>, oneAtATime: boolean): void {
    this.link = link;
    const worked = (payload: string) =>
      onRequest(payload).catch((error: unknown) =>
        this.log(`request ${payload.slice(0, 4)} failed: ${(error as Error).message}`),
      );
    // A request that fails is logged, and the next is worked all the same.
    link.on(
      'message',
      (payload: string) => void (oneAtATime ? (this.work = this.work.then(() => worked(payload))) : worked(payload)),
    );
  }

  /** Resolves once every request taken in turn so far has been answered. */
  idle(): Promise<void> {
    return this.work;
  }

  /** Sends `payload` to the host; a line that is gone is one log line. Answers whether it went. */
  async send(payload: string, what = payload.slice(0, 4)): Promise<boolean> {
    try {
      if (!this.link) throw new LineError('DISCONNECTED', 'no line attached');
      await this.link.send(payload);
      return true;
    } catch (error) {
      this.log(`could not answer ${what}: ${(error as Error).message}`);
      return false;
    }
  }

  /** Waits `ms` on the device's clock. */
  wait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => this.timers.setTimeout(resolve, ms));
  }

  /** The device's clock as an ISO time. */
  now(): Date {
    return new Date(this.timers.now());
  }
}
