import type { Logger } from './log.js';

/**
 * Logs a background loop's failures once per change of state: the first
 * failure as an error, the recovery as info with how many runs failed in
 * between, so an outage of the database is two lines, not one per run.
 */
export class FaultLog {
  private failures = 0;

  constructor(
    private readonly log: Logger,
    private readonly what: string,
  ) {}

  get failing(): boolean {
    return this.failures > 0;
  }

  failed(error: unknown): void {
    this.failures += 1;
    if (this.failures === 1)
      this.log.error(`${this.what} failed; retrying until it works again`, {
        error: (error as Error).message ?? String(error),
      });
  }

  succeeded(): void {
    if (this.failures === 0) return;
    this.log.info(`${this.what} works again`, { failed_runs: this.failures });
    this.failures = 0;
  }

  /** Runs `work`, recording how it went; never rejects. */
  async run(work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
      this.succeeded();
    } catch (error) {
      this.failed(error);
    }
  }
}
