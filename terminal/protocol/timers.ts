/** Time for the link layer, injectable so tests move it by hand instead of sleeping. */
export interface Timers {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Timers that run only when advanced; for tests. */
export class ManualTimers implements Timers {
  private current = 0;
  private pending: Array<{ at: number; callback: () => void; id: number }> = [];
  private nextId = 1;

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.pending.push({ at: this.current + ms, callback, id });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending = this.pending.filter((timer) => timer.id !== handle);
  }

  /** Timers set and not yet fired or cleared (a real one would keep the process alive). */
  get armed(): number {
    return this.pending.length;
  }

  /** How far off the next timer is due, or undefined when none is armed. */
  get nextDueInMs(): number | undefined {
    if (this.pending.length === 0) return undefined;
    return Math.max(0, Math.min(...this.pending.map((timer) => timer.at)) - this.current);
  }

  /** Moves time forward, firing every timer that comes due, in order. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const due = this.pending.filter((timer) => timer.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.pending = this.pending.filter((timer) => timer !== due);
      this.current = due.at;
      due.callback();
    }
    this.current = target;
  }
}
