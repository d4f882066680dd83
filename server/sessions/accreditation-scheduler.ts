import type { Account } from '../accounts/account.js';
import { accountNow, type Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import type { ScheduleRecord, SessionService } from './session-service.js';

/**
 * Fires scheduled accreditations when they come due on their account's
 * clock. The schedule lives in the store, so one pending at a restart fires
 * after it; firing runs in the session's transaction and removes the
 * schedule, so it fires once.
 */
export class AccreditationScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly sessions: SessionService,
    private readonly log: Logger,
  ) {}

  /** Fires what is due now (for one account, or all); answers how many fired. */
  runDue(accountId?: string): Promise<number> {
    // One run at a time; a call during a run waits for it and runs again.
    const previous = this.running ?? Promise.resolve(0);
    const run = previous.then(() => this.fireDue(accountId));
    this.running = run.finally(() => {
      if (this.running === run) this.running = null;
    });
    return run;
  }

  start(intervalMs = 250): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.runDue().catch((error: Error) => this.log.error('scheduled accreditations failed', { error: error.message }));
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async fireDue(accountId?: string): Promise<number> {
    const schedules = await this.store.list<ScheduleRecord>('schedules', accountId ? { where: { account_id: accountId } } : {});
    let fired = 0;
    for (const schedule of schedules) {
      const account = await this.store.get<Account>('accounts', schedule.account_id);
      if (!account || Date.parse(schedule.due_at) > accountNow(this.clock, account)) continue;
      await this.sessions.fireScheduled(account, schedule.session_id);
      fired += 1;
    }
    return fired;
  }
}
