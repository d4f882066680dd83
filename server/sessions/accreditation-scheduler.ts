import type { Account } from '../accounts/account.js';
import { accountNow, type Clock } from '../clock.js';
import { FaultLog } from '../fault-log.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { giveDueTimes, PASS_LIMIT, realDue } from '../clock/due-times.js';
import type { SessionService } from './session-service.js';
import type { ScheduleRecord } from '../clock/schedule-record.js';

/**
 * Fires scheduled accreditations when they come due on their account's
 * clock. The schedule lives in the store, so one pending at a restart fires
 * after it; firing runs in the session's transaction and removes the
 * schedule, so it fires once.
 */
export class AccreditationScheduler {
  private timer: NodeJS.Timeout | null = null;
  /** The run in progress, settled either way: the next run waits for it, whatever its outcome. */
  private running: Promise<void> | null = null;
  private readonly faults: FaultLog;
  /** Once no schedule without a due time is left, none can appear (this version writes them all). */
  private undatedGivenDueTimes = false;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly sessions: SessionService,
    log: Logger,
  ) {
    this.faults = new FaultLog(log, 'firing scheduled accreditations');
  }

  /** Fires what is due now (for one account, or all); answers how many fired. */
  runDue(accountId?: string): Promise<number> {
    // One run at a time; a call during a run waits for it and runs again.
    const previous = this.running ?? Promise.resolve();
    const run = previous.then(() => this.fireDue(accountId));
    // Only the caller of runDue sees a run's failure; the chain never holds a rejection nobody handles.
    const settled: Promise<void> = run
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        if (this.running === settled) this.running = null;
      });
    this.running = settled;
    return run;
  }

  start(intervalMs = 250): void {
    if (this.timer) return;
    // A failed run (the database away) is logged once; the next tick tries again.
    this.timer = setInterval(() => void this.faults.run(() => this.runDue()), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async fireDue(accountId?: string): Promise<number> {
    await this.giveUndatedSchedulesDueTimes();
    // An account's own after its clock moved; otherwise what is due on the server's clock, from the index (due-times.ts).
    const schedules = accountId
      ? await this.store.list<ScheduleRecord>('schedules', { where: { account_id: accountId } })
      : await this.store.list<ScheduleRecord>('schedules', {
          range: { field: 'due_ms', max: this.clock.now() },
          orderBy: { field: 'due_ms', direction: 'asc' },
          limit: PASS_LIMIT,
        });
    let fired = 0;
    for (const schedule of schedules) {
      const account = await this.store.get<Account>('accounts', schedule.account_id);
      if (!account || Date.parse(schedule.due_at) > accountNow(this.clock, account)) continue;
      await this.sessions.fireScheduled(account, schedule.session_id);
      fired += 1;
    }
    // More due than one pass takes: the next tick goes on.
    return fired;
  }

  /** Schedules stored before due times have none (due-times.ts gives them one). */
  private async giveUndatedSchedulesDueTimes(): Promise<void> {
    if (this.undatedGivenDueTimes) return;
    await giveDueTimes<ScheduleRecord>(
      this.store,
      'schedules',
      (schedule) => schedule.session_id,
      (_tx, schedule, offsetMs) => realDue(schedule.due_at, offsetMs),
    );
    this.undatedGivenDueTimes = true;
  }
}
