import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { Answer, PosClient, PosResponse } from '../pos-client.js';
import { Link, LinkError } from '../protocol/link.js';
import { decodeMessage, encodeMessage, type AskKind, type Message, type MessageCode, type RecordMessage } from '../protocol/messages.js';
import { realTimers, type Timers } from '../protocol/timers.js';
import { askKey, BridgeState, recordKey, type HeldRecord } from './bridge-state.js';
import { comparePaid, verdictFor, type ChargedStatus, type Verdict } from './server-verdict.js';

/** A serial port stream; a real one must be closed (not just destroyed) to release its lock. */
export type SerialLine = Duplex & { close?: (callback: (error?: Error | null) => void) => void; isOpen?: boolean };

export const DEFAULTS = {
  answerTimeoutMs: 3000,
  pollMs: 1000,
  minBackoffMs: 500,
  maxBackoffMs: 10_000,
  serverMinBackoffMs: 1000,
  serverMaxBackoffMs: 30_000,
  /** A record the server keeps answering 5xx (while it answers): held for an operator after this long. */
  recordFaultHoldMs: 10 * 60_000,
};

export interface BridgeOptions {
  /** Opens the serial line (a real port, a pseudo-terminal, a mock). */
  open: () => Promise<SerialLine>;
  client: PosClient;
  /** What must survive a restart: orders asked, records held. */
  state: BridgeState;
  /** Where the server is, for log lines. */
  serverUrl?: string;
  timers?: Timers;
  /** Time to wait for the device's answer to a request. */
  answerTimeoutMs?: number;
  /** Between two cycles (heartbeat, orders, records). */
  pollMs?: number;
  /** Reopening the serial line: from this, doubling up to maxBackoffMs. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Retrying a server that failed: from this, doubling up to serverMaxBackoffMs. */
  serverMinBackoffMs?: number;
  serverMaxBackoffMs?: number;
  /** How long a record may keep getting 5xx answers before it is held (default 10 min). */
  recordFaultHoldMs?: number;
  log?: (line: string) => void;
  /** Errors: records held, operator decisions. Defaults to `log`. */
  error?: (line: string) => void;
  debug?: (line: string) => void;
}

class NoAnswerError extends Error {}

/** The server could not be used just now; nothing about any record was decided. */
class ServerFault extends Error {}

export interface CycleResult {
  charged: number;
  voided: number;
  recorded: number;
  /** The record at the head of the device's queue is held: nothing behind it moves until an operator decides. */
  blocked: boolean;
}

/**
 * Drives one device for one terminal. Each cycle: a heartbeat (0100); the
 * server's PENDING orders of the terminal asked to be charged (0300) and its
 * VOID_PENDING orders asked to be voided (0320), each remembered durably
 * before it goes on the line, so a restarted bridge never asks twice; a
 * batch close (0500) if one was asked for; then the records the device
 * holds (0250), oldest first, each sent signed to the server and confirmed
 * to the device (0270) only when the server holds that same record
 * (server-verdict.ts). A record the server holds differently is held, under
 * --state-dir, for an operator, and the device keeps it.
 *
 * The serial line and the server fail separately: a dead line is closed and
 * reopened with backoff (0.5 s doubling to 10 s, reset once the device
 * answers); a server that fails leaves the line open and polled, and is
 * tried again with backoff (1 s doubling to 30 s). Each change of state is
 * one log line, naming the URL and the cause.
 */
export class Bridge {
  private link: Link | null = null;
  private port: SerialLine | null = null;
  private stopped = false;
  private readonly timers: Timers;
  private readonly log: (line: string) => void;
  private readonly error: (line: string) => void;
  private backoff: number;
  private waiting: { expect: MessageCode[]; resolve: (m: Message) => void; reject: (e: Error) => void; timer: unknown } | null = null;
  private server: { down: false } | { down: true; call: string; since: number; cause: string; retryAt: number; backoff: number } = { down: false };
  private lineDown: string | null = null;
  /** Since when each record has been answered 5xx, without a break. */
  private readonly faultingSince = new Map<string, number>();
  /** Asks the device declined, already reported: not asked again, not queried every cycle. */
  private readonly declined = new Set<string>();
  /** Held records already reported, so a blocked queue is one error line, not one per cycle. */
  private readonly reported = new Set<string>();

  constructor(private readonly options: BridgeOptions) {
    this.timers = options.timers ?? realTimers;
    this.log = options.log ?? (() => undefined);
    this.error = options.error ?? this.log;
    this.backoff = options.minBackoffMs ?? DEFAULTS.minBackoffMs;
  }

  /** Runs cycles until stop(); reopens the line after a failure of the line or the device. */
  async run(): Promise<void> {
    while (!this.stopped) {
      try {
        if (!this.link || this.link.isClosed) await this.connect();
        while (!this.stopped && this.link && !this.link.isClosed) {
          await this.cycle();
          // The device answered: the line works, whatever it did before.
          this.backoff = this.options.minBackoffMs ?? DEFAULTS.minBackoffMs;
          if (this.lineDown !== null) this.log('line up: the device answers again');
          this.lineDown = null;
          await this.sleep(this.options.pollMs ?? DEFAULTS.pollMs);
        }
      } catch (error) {
        if (this.stopped) break;
        const cause = (error as Error).message;
        if (this.lineDown === null) this.log(`line down: ${cause}; reopening, backing off from ${this.backoff} ms to ${this.options.maxBackoffMs ?? DEFAULTS.maxBackoffMs} ms`);
        this.lineDown = cause;
      }
      await this.disconnect();
      if (this.stopped) break;
      await this.sleep(this.backoff);
      this.backoff = Math.min(this.options.maxBackoffMs ?? DEFAULTS.maxBackoffMs, this.backoff * 2);
    }
    await this.disconnect();
  }

  stop(): Promise<void> {
    this.stopped = true;
    return this.disconnect();
  }

  /**
   * A host-initiated batch close (0500), journaled before this resolves and
   * sent at the next cycle, with an id the device uses to close once however
   * often it hears it (a lost ACK, a restart before the answer).
   */
  async requestClose(): Promise<void> {
    const now = this.timers.now();
    await this.options.state.requestClose({ closeId: `C${now.toString(36)}${randomBytes(3).toString('hex')}`, requestedAt: new Date(now).toISOString() });
  }

  /** Opens the line (if needed) and runs one cycle; for tests and one-shot use. */
  async cycle(): Promise<CycleResult> {
    if (!this.link || this.link.isClosed) await this.connect();
    const status = await this.request({ code: '0100' }, ['0110']);
    if (status.code === '0110') this.options.debug?.(`device ${status.serial} firmware ${status.firmware}, ${status.pendingCount} record(s) pending`);
    let charged = 0;
    let voided = 0;
    if (this.serverUsable()) {
      charged = await this.serverStep('listing orders', () => this.askDevice('PENDING', (order) => ({ code: '0300', orderId: order.orderId, amount: order.amount, currency: order.currency }), '0310'), 0);
      voided = await this.serverStep('listing orders', () => this.askDevice('VOID_PENDING', (order) => ({ code: '0320', orderId: order.orderId }), '0330'), 0);
    }
    const close = await this.options.state.pendingClose();
    if (close) {
      const closed = await this.request({ code: '0500', closeId: close.closeId }, ['0510']);
      await this.options.state.closeDone(close, new Date(this.timers.now()).toISOString());
      this.log(closed.code === '0510' && closed.rc === '00' ? `batch close ${close.closeId} done by the device` : `the device refused the batch close: ${encodeMessage(closed)}`);
    }
    let recorded = 0;
    let blocked = false;
    for (;;) {
      const next = await this.request({ code: '0250' }, ['0210', '0230', '0520', '0260']);
      if (next.code === '0260') break;
      const record = next as RecordMessage;
      const outcome = await this.handleRecord(record);
      if (outcome === 'wait') break;
      if (outcome === 'blocked') {
        blocked = true;
        break;
      }
      const confirmed = await this.request({ code: '0270', seq: record.seq }, ['0280']);
      if (confirmed.code !== '0280' || confirmed.seq !== record.seq) throw new Error(`the device confirmed ${JSON.stringify(confirmed)} instead of ${record.seq}`);
      recorded += 1;
    }
    return { charged, voided, recorded, blocked };
  }

  /** What to do with the record at the head of the device's queue: confirm it, wait (server away), or stay blocked (held). */
  private async handleRecord(record: RecordMessage): Promise<'confirm' | 'wait' | 'blocked'> {
    const key = recordKey(record);
    const held = await this.options.state.held(key);
    if (held) return this.carryOutDecision(held);
    if (!this.serverUsable()) return 'wait';
    const delivered = await this.serverStep('delivering records', () => this.deliver(record), null);
    if (!delivered) return 'wait';
    const { verdict, answer } = delivered;
    if (verdict.kind === 'confirm') {
      this.log(`record ${record.seq} (${record.code} ${describe(record)}) → ${verdict.note}; confirmed to the device`);
      return 'confirm';
    }
    if (verdict.kind !== 'hold') return 'wait';
    const holding: HeldRecord = {
      key, record, message: encodeMessage(record), reason: verdict.reason,
      server: { status: answer.status, ...(answer.body.code ? { code: answer.body.code } : {}), ...(answer.body.message ? { message: answer.body.message } : {}) },
      heldAt: new Date(this.timers.now()).toISOString(),
    };
    await this.options.state.hold(holding);
    this.reported.add(key);
    this.error(
      `HELD record ${record.seq} (${record.code} ${describe(record)}): ${verdict.reason}. It stays on the device, unconfirmed, and the records behind it wait. ` +
        `Decide with: ${this.options.state.heldCommand()} resend ${key}  (or: discard ${key} --reason "…")`,
    );
    return 'blocked';
  }

  private async carryOutDecision(held: HeldRecord): Promise<'confirm' | 'wait' | 'blocked'> {
    const decision = await this.options.state.decision(held.key);
    if (!decision) {
      if (!this.reported.has(held.key)) this.error(`record ${held.record.seq} (${held.record.code} ${describe(held.record)}) is held: ${held.reason}; waiting for an operator's decision`);
      this.reported.add(held.key);
      return 'blocked';
    }
    if (decision.action === 'discard') {
      await this.options.state.release(held, decision, 'discarded: confirmed to the device without the server');
      this.error(`DISCARDED record ${held.record.seq} (${held.message}) by operator decision: ${decision.reason}; confirming it to the device`);
      return 'confirm';
    }
    // Resend: the hold goes, and the record is delivered afresh (and held again if the server still disagrees).
    await this.options.state.release(held, decision, 'resent');
    this.reported.delete(held.key);
    this.log(`resending held record ${held.record.seq} (${held.record.code} ${describe(held.record)}) by operator decision`);
    return this.handleRecord(held.record);
  }

  /** Sends one record to the server; its answer and the verdict on it. Throws ServerFault when the server could not be used. */
  private async deliver(record: RecordMessage): Promise<{ verdict: Verdict; answer: PosResponse<Answer> }> {
    const { client } = this.options;
    const response = await this.call(() =>
      record.code === '0210'
        ? client.commitPayment(record.orderId, { authorizationCode: record.authorizationCode, paidAt: record.paidAt, amount: record.amount })
        : record.code === '0230'
          ? client.commitVoid(record.orderId)
          : client.notifySettlement({ batchNumber: record.batchNumber, transactionCount: record.transactionCount, closedAt: record.closedAt, currencyReference: record.currencyReference, terminal: record.terminal, debitBatch: record.debitBatch }),
    );
    let verdict = verdictFor(record, response);
    if (verdict.kind === 'compare-paid' && record.code === '0210') verdict = comparePaid(record, await this.findChargedOrder(record.orderId, verdict.status), verdict.status);
    verdict = this.boundFaults(record, verdict, response.status);
    if (verdict.kind === 'fault') throw new ServerFault(verdict.cause);
    return { verdict, answer: response };
  }

  /**
   * A server that answers, but 5xx to this one record, for longer than the
   * bound: the record is held with the answer, visible in svc-terminal held,
   * instead of blocking the queue unseen. An unreachable server holds
   * nothing: that is an outage, and the records wait for it.
   */
  private boundFaults(record: RecordMessage, verdict: Verdict, status: number): Verdict {
    const key = recordKey(record);
    if (verdict.kind !== 'fault' || status < 500) {
      this.faultingSince.delete(key);
      return verdict;
    }
    const now = this.timers.now();
    const since = this.faultingSince.get(key) ?? now;
    this.faultingSince.set(key, since);
    const bound = this.options.recordFaultHoldMs ?? DEFAULTS.recordFaultHoldMs;
    if (now - since < bound) return verdict;
    this.faultingSince.delete(key);
    return { kind: 'hold', reason: `the server has answered this record with errors for ${Math.round((now - since) / 1000)} s (${verdict.cause})` };
  }

  /** The order among the terminal's in a charged state, paging (100 a page, at most 50 pages). */
  private async findChargedOrder(orderId: string, status: ChargedStatus): Promise<{ authorizationCode?: string } | undefined> {
    for (let page = 1; page <= 50; page += 1) {
      const listed = await this.call(() => this.options.client.listOrders({ status, size: 100, page }));
      if (listed.status !== 200) throw new ServerFault(`listing ${status} orders answered ${listed.status} ${listed.body.code ?? ''}`);
      const orders = listed.body.data as Array<{ orderId: string; authorizationCode?: string }>;
      const found = orders.find((order) => order.orderId === orderId);
      if (found || orders.length < 100) return found;
    }
    return undefined;
  }

  private async askDevice(status: 'PENDING' | 'VOID_PENDING', ask: (order: { orderId: string; amount: number; currency: string }) => Message, answer: MessageCode): Promise<number> {
    const kind: AskKind = status === 'PENDING' ? 'charge' : 'void';
    const listed = await this.call(() => this.options.client.listOrders({ status, size: 100 }));
    if (listed.status !== 200) {
      const verdict = listed.status === 401 || listed.status === 429 || listed.status >= 500 ? 'fault' : 'refused';
      const said = `${listed.status} ${listed.body.code ?? ''}${listed.body.message ? `: ${listed.body.message}` : ''}`;
      const cause = listed.status === 401 ? `the server refuses this terminal's signature (${said}): check the terminal's secret and the clock` : `listing ${status} orders answered ${said}`;
      if (verdict === 'fault') throw new ServerFault(cause);
      this.error(cause);
      return 0;
    }
    let asked = 0;
    for (const order of listed.body.data as Array<{ orderId: string; amount: number; currency: string }>) {
      const key = `${status}:${order.orderId}`;
      if (this.options.state.hasAsked(key)) {
        // Asked before and still open: the ask may never have reached the device (cut off on the line, or
        // the bridge killed after recording it). Ask again only on the device's word that it has not got it.
        if (!(await this.askAgain(kind, order.orderId))) continue;
      } else {
        // Durable before it goes on the line: a bridge restarted after this point never asks blindly again.
        await this.options.state.markAsked(key, new Date(this.timers.now()).toISOString());
      }
      const reply = await this.request(ask(order), [answer]);
      const rc = (reply as { rc?: string }).rc;
      if (rc === '00') {
        asked += 1;
        this.log(`${kind} ${order.orderId} sent to the device`);
      } else if (rc === '94') {
        this.error(`the device says ${order.orderId} was already ${kind === 'charge' ? 'charged' : 'voided'} (rc 94): not asked again; its record is on the device or already delivered`);
      } else {
        this.error(`the device refused ${encodeMessage(ask(order))}: ${encodeMessage(reply)}`);
      }
    }
    return asked;
  }

  /**
   * Whether an ask recorded before, for an order still open, goes on the
   * line again: yes when the device says it never got it (0160 unknown),
   * or when an operator decided so for a held ask; no while it is pending,
   * done or declined there. A device that cannot say holds the ask for an
   * operator: never a second charge on a guess.
   */
  private async askAgain(kind: AskKind, orderId: string): Promise<boolean> {
    const key = askKey(kind, orderId);
    if (this.declined.has(key)) return false;
    const held = await this.options.state.heldAsk(key);
    if (held) {
      const decision = await this.options.state.askDecision(key);
      if (!decision) return false;
      await this.options.state.releaseAsk(held, decision, decision.action === 'resend' ? 'asked again' : 'not asked again');
      this.log(`held ask ${key}: ${decision.action === 'resend' ? 'asking the device again' : `discarded (${decision.reason ?? 'no reason'}); the order stays open on the server`} by operator decision`);
      if (decision.action === 'discard') this.declined.add(key);
      return decision.action === 'resend';
    }
    let known: Message;
    try {
      known = await this.request({ code: '0150', kind, orderId }, ['0160']);
    } catch (error) {
      if (!/^device error/.test((error as Error).message)) throw error;
      const reason = `the ask was recorded but the order is still open, and the device cannot say whether it got it (${(error as Error).message})`;
      await this.options.state.holdAsk({ key, kind, orderId, reason, heldAt: new Date(this.timers.now()).toISOString() });
      this.error(`HELD ${kind} of ${orderId}: ${reason}. Decide with: ${this.options.state.heldCommand()} resend ${key}  (or: discard ${key} --reason "…")`);
      return false;
    }
    const state = known.code === '0160' ? known.state : 'unknown';
    if (state === 'unknown') {
      this.log(`the ${kind} of ${orderId} never reached the device (cut off on the line or by a restart): asking again`);
      return true;
    }
    if (state === 'declined') {
      this.declined.add(key);
      this.log(`the ${kind} of ${orderId} was declined at the terminal: not asked again; the order stays open on the server`);
    }
    return false;
  }

  /** A server call; a network failure is a ServerFault, never a line fault. */
  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new ServerFault(`${(error as Error).message}${cause?.code ? ` (${cause.code})` : cause?.message ? ` (${cause.message})` : ''}`);
    }
  }

  /** Runs a step that uses the server; a ServerFault marks the server down (one log line) and answers `otherwise`. */
  /**
   * A step that needs the server. Only a success of the same kind of call
   * that failed brings the server back: when listing works and delivering
   * does not, the log says so once and the backoff keeps growing, instead
   * of flipping between available and unavailable every cycle.
   */
  private async serverStep<T>(call: string, step: () => Promise<T>, otherwise: T): Promise<T> {
    try {
      const result = await step();
      this.serverUp(call);
      return result;
    } catch (error) {
      if (!(error instanceof ServerFault)) throw error;
      this.serverDown(call, error.message);
      return otherwise;
    }
  }

  private serverUsable(): boolean {
    return !this.server.down || this.timers.now() >= this.server.retryAt;
  }

  private serverDown(call: string, cause: string): void {
    const now = this.timers.now();
    const min = this.options.serverMinBackoffMs ?? DEFAULTS.serverMinBackoffMs;
    const max = this.options.serverMaxBackoffMs ?? DEFAULTS.serverMaxBackoffMs;
    if (!this.server.down) {
      this.error(`server ${this.options.serverUrl ?? ''} unavailable for ${call}: ${cause}; records stay on the device, the line stays open, retrying from ${min} ms up to every ${max / 1000} s`);
      this.server = { down: true, call, since: now, cause, retryAt: now + min, backoff: min };
      return;
    }
    const backoff = Math.min(max, this.server.backoff * 2);
    if (cause !== this.server.cause) this.error(`server ${this.options.serverUrl ?? ''} still unavailable, now for ${call}: ${cause}`);
    this.server = { down: true, call, since: this.server.since, cause, retryAt: now + backoff, backoff };
  }

  private serverUp(call: string): void {
    if (!this.server.down || this.server.call !== call) return;
    this.log(`server ${this.options.serverUrl ?? ''} available again for ${call} after ${((this.timers.now() - this.server.since) / 1000).toFixed(1)} s`);
    this.server = { down: false };
  }

  private async request(message: Message, expect: MessageCode[]): Promise<Message> {
    const link = this.link;
    if (!link) throw new Error('no line');
    const timeoutMs = this.options.answerTimeoutMs ?? DEFAULTS.answerTimeoutMs;
    const answered = new Promise<Message>((resolve, reject) => {
      const timer = this.timers.setTimeout(() => {
        this.waiting = null;
        reject(new NoAnswerError(`no answer to ${message.code} within ${timeoutMs} ms (--answer-timeout-ms)`));
      }, timeoutMs);
      this.waiting = { expect, resolve, reject, timer };
    });
    // When sending fails, the line's close also rejects the answer nobody waits for yet.
    answered.catch(() => undefined);
    try {
      await link.send(encodeMessage(message));
    } catch (error) {
      if (this.waiting) this.timers.clearTimeout(this.waiting.timer);
      this.waiting = null;
      throw error;
    }
    return answered;
  }

  private onMessage(payload: string): void {
    const waiting = this.waiting;
    let message: Message;
    try {
      message = decodeMessage(payload);
    } catch (error) {
      this.log(`unreadable message from the device: ${payload} (${(error as Error).message})`);
      return;
    }
    if (!waiting) return this.log(`unexpected message from the device: ${payload}`);
    if (!waiting.expect.includes(message.code) && message.code !== '0990') return this.log(`ignored ${payload} while waiting for ${waiting.expect.join('/')}`);
    this.timers.clearTimeout(waiting.timer);
    this.waiting = null;
    if (message.code === '0990') waiting.reject(new Error(`device error ${message.errorCode}: ${message.text}`));
    else waiting.resolve(message);
  }

  private async connect(): Promise<void> {
    const port = await this.options.open();
    this.port = port;
    this.link = new Link(port, { timers: this.timers, ...(this.options.debug ? { debug: this.options.debug } : {}) });
    this.link.on('message', (payload: string) => this.onMessage(payload));
    this.link.once('close', (error: LinkError) => {
      this.waiting?.reject(error);
      this.waiting = null;
    });
    this.log('line open');
  }

  private async disconnect(): Promise<void> {
    const link = this.link;
    const port = this.port;
    this.link = null;
    this.port = null;
    if (link && !link.isClosed) link.close();
    if (!port) return;
    // Release the device path (a serial port holds a lock until closed), so that reopening it can succeed.
    if (port.close && port.isOpen !== false) await new Promise<void>((resolve) => port.close!(() => resolve()));
    if (!port.destroyed) port.destroy();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.timers.setTimeout(resolve, ms));
  }
}

function describe(record: RecordMessage): string {
  if (record.code === '0520') return `batch ${record.batchNumber}`;
  return record.code === '0210' ? `sale ${record.orderId} ${record.amount} ${record.currency} auth ${record.authorizationCode}` : `void ${record.orderId}`;
}
