import { BridgeError, hasCode } from '../errors.js';
import type { Answer, PosClient, PosResponse } from '../../contracts/clients/pos-client.js';
import { describeRecord, recordKey, type MoneyRecord } from './money-record.js';
import type { Timers } from '../protocol/timers.js';
import type { BridgeState, HeldRecord } from './bridge-state.js';
import { comparePaid, verdictFor, type ChargedStatus, type Verdict } from './server-verdict.js';

/** The most orders one listing asks the server for (the interface's largest page). */
const PAGE_SIZE = 100;

export interface CourierOptions {
  client: PosClient;
  state: BridgeState;
  timers: Timers;
  /** Where the server is, for log lines. */
  serverUrl?: string;
  serverMinBackoffMs: number;
  serverMaxBackoffMs: number;
  /** How long a record may keep getting 5xx answers before it is held. */
  recordFaultHoldMs: number;
  /** Where undelivered records wait, for the log: on the device (svc) or in the bridge's dialect journal (transbank, zvt, nexo). */
  keptOn: 'device' | 'journal';
  log: (line: string) => void;
  error: (line: string) => void;
}

const WORDS = {
  device: {
    done: 'confirmed to the device',
    kept: 'It stays on the device, unconfirmed',
    waiting: 'records stay on the device',
    discarded: 'confirmed to the device without the server',
    discarding: '; confirming it to the device',
  },
  journal: {
    done: 'done',
    kept: "It is kept in the bridge's journal, undelivered",
    waiting: "records are kept in the bridge's journal",
    discarded: 'dropped from the journal without the server',
    discarding: '',
  },
} as const;

/** What to do with a record once the server has seen it: it is done (confirm), it waits (server away), or it is held for an operator. */
export type DeliveryVerdict = 'confirm' | 'wait' | 'blocked';

/**
 * Carries a bridge's money records to the server, whatever device made
 * them: each is sent signed, and is done only when the server holds that
 * same record (server-verdict.ts); a record the server holds differently is
 * held under --state for an operator, and one that keeps getting 5xx is
 * held after a bounded time. It also keeps the server's health: a server
 * that fails is tried again with backoff (1 s doubling to 30 s), and only a
 * success of the same kind of call brings it back. Each change is one line.
 */
export class RecordCourier {
  private server:
    { down: false } | { down: true; call: string; since: number; cause: string; retryAt: number; backoff: number } = {
    down: false,
  };
  /** Since when each record has been answered 5xx, without a break. */
  private readonly faultingSince = new Map<string, number>();
  /** Held records already reported, so a blocked queue is one error line, not one per cycle. */
  private readonly reported = new Set<string>();

  private readonly words: (typeof WORDS)[keyof typeof WORDS];

  constructor(private readonly options: CourierOptions) {
    this.words = WORDS[options.keptOn];
  }

  /** Whether the server may be tried now: it is up, or its backoff has run out. */
  usable(): boolean {
    return !this.server.down || this.options.timers.now() >= this.server.retryAt;
  }

  /**
   * A step that needs the server. A fault of the server (SERVER_UNAVAILABLE,
   * SERVER_REFUSED: nothing about any record was decided) marks it down (one
   * log line) and answers `otherwise`. Only a success of the same kind of
   * call that failed brings the server back: when listing works and
   * delivering does not, the log says so once and the backoff keeps growing.
   */
  async step<T>(call: string, work: () => Promise<T>, otherwise: T): Promise<T> {
    try {
      const result = await work();
      this.up(call);
      return result;
    } catch (error) {
      if (!hasCode(error, 'SERVER_UNAVAILABLE', 'SERVER_REFUSED')) throw error;
      this.down(call, `${error.message} [${error.code}]`, error.code === 'SERVER_REFUSED');
      return otherwise;
    }
  }

  /** A server call; a network failure is SERVER_UNAVAILABLE, never a line fault. */
  async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new BridgeError(
        'SERVER_UNAVAILABLE',
        `${(error as Error).message}${cause?.code ? ` (${cause.code})` : cause?.message ? ` (${cause.message})` : ''}`,
      );
    }
  }

  /** The terminal's orders in one state, first page; a fault of the server throws SERVER_UNAVAILABLE or SERVER_REFUSED, a refusal is logged and answers none. */
  async listOrders<T>(status: 'PENDING' | 'VOID_PENDING'): Promise<T[]> {
    const listed = await this.call(() => this.options.client.listOrders({ status, size: PAGE_SIZE }));
    if (listed.status === 200) return listed.body.data as T[];
    const said = `${listed.status} ${listed.body.code ?? ''}${listed.body.message ? `: ${listed.body.message}` : ''}`;
    const cause =
      listed.status === 401
        ? `the server refuses this terminal's signature (${said}): check the terminal's secret and the clock`
        : `listing ${status} orders answered ${said}`;
    if (listed.status === 401 || listed.status === 429 || listed.status >= 500)
      throw new BridgeError(listed.status === 401 ? 'SERVER_REFUSED' : 'SERVER_UNAVAILABLE', cause);
    this.options.error(cause);
    return [];
  }

  /** Delivers one record, or carries out the operator's decision on it when it is held. */
  async handleRecord(record: MoneyRecord): Promise<DeliveryVerdict> {
    const { state } = this.options;
    const key = recordKey(record);
    const held = await state.held(key);
    if (held) return this.carryOutDecision(held);
    if (!this.usable()) return 'wait';
    const delivered = await this.step('delivering records', () => this.deliver(record), null);
    if (!delivered) return 'wait';
    const { verdict, answer } = delivered;
    if (verdict.kind === 'confirm') {
      this.options.log(`record ${record.seq} (${describeRecord(record)}) → ${verdict.note}; ${this.words.done}`);
      return 'confirm';
    }
    if (verdict.kind !== 'hold') return 'wait';
    const holding: HeldRecord = {
      key,
      record,
      message: describeRecord(record),
      reason: verdict.reason,
      server: {
        status: answer.status,
        ...(answer.body.code ? { code: answer.body.code } : {}),
        ...(answer.body.message ? { message: answer.body.message } : {}),
      },
      heldAt: new Date(this.options.timers.now()).toISOString(),
    };
    await state.hold(holding);
    this.reported.add(key);
    this.options.error(
      `HELD record ${record.seq} (${describeRecord(record)}): ${verdict.reason}. ${this.words.kept}, and the records behind it wait. ` +
        `Decide with: ${state.heldCommand()} resend ${key}  (or: discard ${key} --reason "…")`,
    );
    return 'blocked';
  }

  private async carryOutDecision(held: HeldRecord): Promise<DeliveryVerdict> {
    const { state } = this.options;
    const decision = await state.decision(held.key);
    if (!decision) {
      if (!this.reported.has(held.key))
        this.options.error(
          `record ${held.record.seq} (${describeRecord(held.record)}) is held: ${held.reason}; waiting for an operator's decision`,
        );
      this.reported.add(held.key);
      return 'blocked';
    }
    if (decision.action === 'discard') {
      await state.release(held, decision, `discarded: ${this.words.discarded}`);
      this.options.error(
        `DISCARDED record ${held.record.seq} (${held.message}) by operator decision: ${decision.reason}${this.words.discarding}`,
      );
      return 'confirm';
    }
    // Resend: the hold goes, and the record is delivered afresh (and held again if the server still disagrees).
    await state.release(held, decision, 'resent');
    this.reported.delete(held.key);
    this.options.log(`resending held record ${held.record.seq} (${describeRecord(held.record)}) by operator decision`);
    return this.handleRecord(held.record);
  }

  /** Sends one record to the server; its answer and the verdict on it. Throws SERVER_UNAVAILABLE or SERVER_REFUSED when the server could not be used. */
  private async deliver(record: MoneyRecord): Promise<{ verdict: Verdict; answer: PosResponse<Answer> }> {
    const { client } = this.options;
    const response = await this.call(() =>
      record.kind === 'payment'
        ? client.commitPayment(record.orderId, {
            authorizationCode: record.authorizationCode,
            paidAt: record.paidAt,
            amount: record.amount,
          })
        : record.kind === 'void'
          ? client.commitVoid(record.orderId)
          : client.notifySettlement({
              batchNumber: record.batchNumber,
              transactionCount: record.transactionCount,
              closedAt: record.closedAt,
              currencyReference: record.currencyReference,
              terminal: record.terminal,
              debitBatch: record.debitBatch,
            }),
    );
    let verdict = verdictFor(record, response);
    if (verdict.kind === 'compare-paid' && record.kind === 'payment')
      verdict = comparePaid(record, await this.findChargedOrder(record.orderId, verdict.status), verdict.status);
    verdict = this.boundFaults(record, verdict, response.status);
    if (verdict.kind === 'fault')
      throw new BridgeError(response.status === 401 ? 'SERVER_REFUSED' : 'SERVER_UNAVAILABLE', verdict.cause);
    return { verdict, answer: response };
  }

  /**
   * A server that answers, but 5xx to this one record, for longer than the
   * bound: the record is held with the answer, visible in svc-terminal held,
   * instead of blocking the queue unseen. An unreachable server holds
   * nothing: that is an outage, and the records wait for it.
   */
  private boundFaults(record: MoneyRecord, verdict: Verdict, status: number): Verdict {
    const key = recordKey(record);
    if (verdict.kind !== 'fault' || status < 500) {
      this.faultingSince.delete(key);
      return verdict;
    }
    const now = this.options.timers.now();
    const since = this.faultingSince.get(key) ?? now;
    this.faultingSince.set(key, since);
    if (now - since < this.options.recordFaultHoldMs) return verdict;
    this.faultingSince.delete(key);
    return {
      kind: 'hold',
      reason: `the server has answered this record with errors for ${Math.round((now - since) / 1000)} s (${verdict.cause})`,
    };
  }

  /** The order among the terminal's in a charged state, paging (PAGE_SIZE a page, at most 50 pages). */
  private async findChargedOrder(
    orderId: string,
    status: ChargedStatus,
  ): Promise<{ authorizationCode?: string } | undefined> {
    for (let page = 1; page <= 50; page += 1) {
      const listed = await this.call(() => this.options.client.listOrders({ status, size: PAGE_SIZE, page }));
      if (listed.status !== 200)
        throw new BridgeError(
          'SERVER_UNAVAILABLE',
          `listing ${status} orders answered ${listed.status} ${listed.body.code ?? ''}`,
        );
      const orders = listed.body.data as Array<{ orderId: string; authorizationCode?: string }>;
      const found = orders.find((order) => order.orderId === orderId);
      if (found || orders.length < PAGE_SIZE) return found;
    }
    return undefined;
  }

  private down(call: string, cause: string, refused = false): void {
    const now = this.options.timers.now();
    const { serverMinBackoffMs: min, serverMaxBackoffMs: max, serverUrl = '' } = this.options;
    // A refused signature is no outage: the server answers, and turns this terminal away.
    const state = refused ? 'refuses this terminal' : 'unavailable';
    if (!this.server.down) {
      this.options.error(
        `server ${serverUrl} ${state} for ${call}: ${cause}; ${this.words.waiting}, the line stays open, retrying from ${min} ms up to every ${max / 1000} s`,
      );
      this.server = { down: true, call, since: now, cause, retryAt: now + min, backoff: min };
      return;
    }
    const backoff = Math.min(max, this.server.backoff * 2);
    if (cause !== this.server.cause)
      this.options.error(`server ${serverUrl} still ${state}, now for ${call}: ${cause}`);
    this.server = { down: true, call, since: this.server.since, cause, retryAt: now + backoff, backoff };
  }

  private up(call: string): void {
    if (!this.server.down || this.server.call !== call) return;
    this.options.log(
      `server ${this.options.serverUrl ?? ''} available again for ${call} after ${((this.options.timers.now() - this.server.since) / 1000).toFixed(1)} s`,
    );
    this.server = { down: false };
  }
}
