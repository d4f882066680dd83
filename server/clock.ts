// The service never reads the time directly: everything takes a Clock, so
// tests move time by hand and accounts can run ahead (INTERFACE.md §6).

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to; for tests. */
export class ManualClock implements Clock {
  constructor(private current = Date.parse('2026-11-21T10:00:00.000Z')) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(ms: number): void {
    this.current = ms;
  }
}

/** An account's own time: the service clock plus the account's offset. */
export function accountNow(clock: Clock, account: { clock_offset_ms: number }): number {
  return clock.now() + account.clock_offset_ms;
}

/** INTERFACE.md's time format: ISO 8601 UTC with milliseconds. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
