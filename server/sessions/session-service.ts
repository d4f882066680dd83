import type { Account } from '../accounts/account.js';
import { newId } from '../accounts/secrets.js';
import { accountNow, iso, type Clock } from '../clock.js';
import { AppError, appError, type ErrorDetail, isAppError } from '../errors.js';
import type { Store, Transaction } from '../store/store.js';
import { owned } from './catalog.js';
import { trace } from '../trace/trace.js';
import { outboxEvents, recordEvents, type EventSink, type OutboxEvent } from './events.js';
import { buildSession, itemAnswer, itemOwnError, type SessionInput } from './session-input.js';
import { transition, type EventEffect, type SessionTrigger } from './session-machine.js';
import { storedSession, type Origin, type SessionRecord } from './session.js';
import { realDue } from '../clock/due-times.js';
import type { ScheduleRecord } from '../clock/schedule-record.js';

export interface BatchRecord {
  [field: string]: unknown;
  batch_id: string;
  account_id: string;
  session_ids: string[];
  created_at: string;
}

/** One item of a stop's session batch, as the operation answers it. */
export type StopItemResult =
  { index: number; status: 201; session: SessionRecord } | { index: number; status: 400 | 404; error: AppError };

/**
 * Payment sessions: creation, reads, expiry, forced outcomes, the payment
 * page's outcome and scheduled accreditation. Every change runs the pure
 * state machine inside one transaction that also stores the events it
 * emits, so an event is never lost nor emitted for a change not stored.
 */
export class SessionService {
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly sink: EventSink;
  private readonly accreditationDelayMs: number;
  private readonly checkInput: (value: unknown) => ErrorDetail[];

  constructor(options: {
    store: Store;
    clock: Clock;
    sink: EventSink;
    accreditationDelayMs: number;
    /** Validates one item of a stop batch against SessionCreateRequest; answers its problems. */
    checkInput: (value: unknown) => ErrorDetail[];
  }) {
    ({
      store: this.store,
      clock: this.clock,
      sink: this.sink,
      accreditationDelayMs: this.accreditationDelayMs,
      checkInput: this.checkInput,
    } = options);
  }

  async create(account: Account, input: SessionInput, origin: Origin = 'button'): Promise<SessionRecord> {
    const { result, events } = await this.store.transact(async (tx) => {
      const session = await buildSession(tx, account, input, origin, this.now(account)).catch(rethrowAnswer(''));
      return await this.insert(tx, account, session);
    });
    this.sink.emitted(events);
    return result;
  }

  /** A Request batch: all or nothing (the simulator ignores continue_on_error). */
  async createRequestBatch(
    account: Account,
    inputs: SessionInput[],
  ): Promise<{ batch: BatchRecord; sessions: SessionRecord[] }> {
    const { result, events } = await this.store.transact(async (tx) => {
      const now = this.now(account);
      const created: SessionRecord[] = [];
      const events: OutboxEvent[] = [];
      for (const [index, input] of inputs.entries()) {
        const session = await buildSession(tx, account, input, 'request', now).catch(
          rethrowAnswer(`/sessions/${index}`),
        );
        const inserted = await this.insert(tx, account, session);
        created.push(inserted.result);
        events.push(...inserted.events);
      }
      const batch: BatchRecord = {
        batch_id: newId('bat'),
        account_id: account.account_id,
        session_ids: created.map((s) => s.session_id),
        created_at: now,
      };
      tx.insert('batches', batch.batch_id, batch);
      return { result: { batch, sessions: created }, events };
    });
    this.sink.emitted(events);
    return result;
  }

  async getBatch(account: Account, batchId: string): Promise<{ batch: BatchRecord; sessions: SessionRecord[] }> {
    const batch = await owned<BatchRecord>(this.store, 'batches', batchId, account, 'batch');
    const sessions = await Promise.all(batch.session_ids.map((id) => this.read(account, id)));
    return { batch, sessions };
  }

  /**
   * Sessions for a stop (INTERFACE.md §5): each item checked on its own. Without
   * continue_on_error the first failing item fails the whole batch and
   * nothing is created; with it, the good items are created.
   */
  async createForStop(
    account: Account,
    stopId: string,
    items: unknown[],
    continueOnError: boolean,
  ): Promise<StopItemResult[]> {
    const { result, events } = await this.store.transact(async (tx) => {
      const stop = await owned<{ account_id: string; session_ids: string[] }>(tx, 'stops', stopId, account, 'stop');
      const now = this.now(account);
      const results: StopItemResult[] = [];
      const events: OutboxEvent[] = [];
      for (const [index, item] of items.entries()) {
        const problems = this.checkInput(item);
        let outcome: StopItemResult;
        if (problems.length > 0) {
          outcome = {
            index,
            status: 400,
            error: appError(
              'VALIDATION_FAILED',
              problems.map((p) => ({ ...p, pointer: `/sessions/${index}${p.pointer}` })),
              `${problems[0]!.pointer || '/'} ${problems[0]!.message}`,
            ),
          };
        } else {
          try {
            const session = await buildSession(tx, account, item as SessionInput, 'stop', now);
            const inserted = await this.insert(tx, account, session);
            events.push(...inserted.events);
            outcome = { index, status: 201, session: inserted.result };
          } catch (error) {
            if (!isAppError(error, 'SESSION_ITEM_REFUSED')) throw error;
            const own = itemOwnError(error);
            const answer = own.code === 'NOT_FOUND' ? own : itemAnswer(error, `/sessions/${index}`);
            outcome = { index, status: answer.status === 404 ? 404 : 400, error: answer };
          }
        }
        if (outcome.status !== 201 && !continueOnError) {
          const error = outcome.error;
          // Nothing of this batch is kept: throwing rolls the transaction back.
          // The item's own message does not name the item (its result carries `index`): named once here.
          throw appError(
            'VALIDATION_FAILED',
            error.details ?? [{ in: 'body', pointer: `/sessions/${index}`, message: error.message }],
            `item ${index}: ${error.message}`,
          );
        }
        results.push(outcome);
      }
      const created = results.flatMap((r) => (r.status === 201 ? [r.session.session_id] : []));
      tx.put('stops', stopId, { ...stop, session_ids: [...stop.session_ids, ...created] });
      return { result: results, events };
    });
    this.sink.emitted(events);
    return result;
  }

  /** The session as it reads now: the due-date rule applied (and stored) first. */
  read(account: Account, sessionId: string): Promise<SessionRecord> {
    return this.apply(account, sessionId, null);
  }

  expire(account: Account, sessionId: string): Promise<SessionRecord> {
    return this.apply(account, sessionId, { kind: 'expire' });
  }

  force(account: Account, sessionId: string, leg: 1 | 2, outcome: string): Promise<SessionRecord> {
    return this.apply(account, sessionId, { kind: 'force', leg, outcome });
  }

  /** The payment page's outcome; on payment, leg 2 is scheduled after the accreditation delay. */
  async payViaPage(
    account: Account,
    sessionId: string,
    page:
      | { outcome: 'paid'; leg2: 'accredited' | 'accreditation_failed' }
      | { outcome: 'failed'; reason: string }
      | { outcome: 'expired' },
  ): Promise<SessionRecord> {
    const trigger: SessionTrigger =
      page.outcome === 'paid'
        ? {
            kind: 'page',
            outcome: 'paid',
            leg2: page.leg2,
            accreditAt: iso(accountNow(this.clock, account) + this.accreditationDelayMs),
          }
        : page.outcome === 'failed'
          ? { kind: 'page', outcome: 'failed', reason: page.reason }
          : { kind: 'page', outcome: 'expired' };
    return this.apply(account, sessionId, trigger);
  }

  /** Fires a scheduled accreditation; does nothing when it was cancelled or already fired. */
  async fireScheduled(account: Account, sessionId: string): Promise<void> {
    await this.apply(account, sessionId, { kind: 'scheduled-accreditation' });
  }

  private async apply(account: Account, sessionId: string, trigger: SessionTrigger | null): Promise<SessionRecord> {
    const { result, events } = await this.store.transact(async (tx) => {
      const stored = await owned<SessionRecord>(tx, 'sessions', sessionId, account, 'session');
      const nowMs = accountNow(this.clock, account);
      let session = stored;
      const effects: EventEffect[] = [];
      let schedule: 'set' | 'cancel' | undefined;
      for (const step of [{ kind: 'due-date', now: nowMs } as SessionTrigger, ...(trigger ? [trigger] : [])]) {
        const outcome = transition(session, step);
        if (outcome.result === 'rejected') {
          throw new AppError(outcome.code, { message: outcome.reason });
        }
        if (outcome.result === 'changed') {
          session = outcome.session;
          effects.push(...outcome.events);
          schedule = outcome.schedule ?? schedule;
        }
      }
      // A scheduled accreditation runs once, whether it still had something to do or was cancelled.
      if (trigger?.kind === 'scheduled-accreditation') tx.delete('schedules', sessionId);
      if (session === stored) return { result: stored, events: [] as OutboxEvent[] };
      const at = iso(nowMs);
      const emitted = outboxEvents(session, effects, at, webhookSecret(account));
      tx.put('sessions', sessionId, storedSession(emitted.session));
      if (session.status !== stored.status) {
        trace(tx, account.account_id, 'session.status_changed', at, {
          session_id: sessionId,
          from: stored.status,
          to: session.status,
          cause: trigger?.kind ?? 'due-date',
        });
      }
      if (trigger?.kind === 'force') {
        trace(tx, account.account_id, 'control.outcome', at, {
          session_id: sessionId,
          leg: trigger.leg,
          outcome: trigger.outcome,
        });
      }
      await recordEvents(tx, emitted.events, account.clock_offset_ms);
      if (schedule === 'set') {
        const dueAt = emitted.session.accreditation.scheduled_for!;
        tx.put('schedules', sessionId, {
          session_id: sessionId,
          account_id: account.account_id,
          due_at: dueAt,
          due_ms: realDue(dueAt, account.clock_offset_ms),
        } satisfies ScheduleRecord);
      } else if (schedule === 'cancel') {
        tx.delete('schedules', sessionId);
      }
      return { result: emitted.session, events: emitted.events };
    });
    this.sink.emitted(events);
    return result;
  }

  private async insert(
    tx: Transaction,
    account: Account,
    session: SessionRecord,
  ): Promise<{ result: SessionRecord; events: OutboxEvent[] }> {
    const emitted = outboxEvents(
      session,
      [{ event: 'payment_session.created' }],
      session.created_at,
      webhookSecret(account),
    );
    tx.insert('sessions', session.session_id, storedSession(emitted.session));
    trace(tx, account.account_id, 'session.created', session.created_at, {
      session_id: session.session_id,
      origin: session.origin,
      amount_reference: session.amount_cents / 100,
    });
    await recordEvents(tx, emitted.events, account.clock_offset_ms, { newSession: true });
    return { result: emitted.session, events: emitted.events };
  }

  private now(account: Account): string {
    return iso(accountNow(this.clock, account));
  }
}

function webhookSecret(account: Account): string {
  return account.keys[0]!.webhook_secret;
}

function rethrowAnswer(prefix: string) {
  return (error: unknown): never => {
    if (isAppError(error, 'SESSION_ITEM_REFUSED')) throw itemAnswer(error, prefix);
    throw error;
  };
}
