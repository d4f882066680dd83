/**
 * Background work one piece per event-loop turn. `take()` resolves one
 * waiter per turn of the loop, in the order they asked, so between two
 * pieces the loop polls for I/O and the requests that arrived meanwhile are
 * handled first.
 *
 * Why not `setImmediate` in each worker: immediates queued before a check
 * phase all run in that phase, so sixteen workers waking together ran
 * sixteen deliveries (3-5 ms) back to back while a request waited. An
 * immediate queued from inside an immediate runs on the next turn, after
 * the poll, which is what spaces the pieces here.
 */
export class Turns {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;

  constructor(private readonly schedule: (callback: () => void) => void = setImmediate) {}

  take(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (!this.scheduled) this.next();
    });
  }

  /** How many wait for a turn. */
  get queued(): number {
    return this.waiting.length;
  }

  private next(): void {
    this.scheduled = true;
    this.schedule(() => {
      // The woken piece runs in the microtasks right after this callback;
      // the next turn is queued from here, so it comes after the next poll.
      this.waiting.shift()!(); // a turn is scheduled only while someone waits
      if (this.waiting.length > 0) this.next();
      else this.scheduled = false;
    });
  }
}
