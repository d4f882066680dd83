import { randomBytes } from 'node:crypto';
import { codeOf, hasCode } from '../errors.js';
import { realTimers, type Timers } from '../protocol/timers.js';
import { COMMON_DEFAULTS, courierOf, type CommonBridgeOptions, type SerialLine } from './bridge-options.js';
import { askKey } from './bridge-state.js';
import type { RecordCourier } from './courier.js';
import type { AskKind, DialectDefinition, DialectDevice, DialectLine, OrderToAsk } from './dialect.js';

export type { SerialLine };

export interface BridgeOptions extends CommonBridgeOptions {
  /** The device's messages and how they cross the line (svc-dialect.ts, transbank-dialect.ts, zvt-dialect.ts). */
  dialect: DialectDefinition;
}

export interface CycleResult {
  /** Orders the device took to charge (a POS Integrado: sold). */
  charged: number;
  /** Orders the device took to void (refunded). */
  voided: number;
  /** Records the server now holds. */
  delivered: number;
  /** The record at the head of the queue is held: nothing behind it moves until an operator decides. */
  blocked: boolean;
}

/**
 * Drives one device for one terminal, whatever its dialect (dialect.ts).
 * Each cycle: the dialect establishes where the device stands (a poll, and
 * the outcome of a request a kill or a fault left unanswered); the
 * server's PENDING orders of the terminal are asked to be charged and its
 * VOID_PENDING ones to be voided, each unless an operator holds it or the
 * device already has it; a batch close if one was asked for; then the
 * money records, oldest first, each sent signed to the server and done
 * with only when the server holds that same record (server-verdict.ts). A
 * record the server holds differently is held, under --state, for an
 * operator.
 *
 * The serial line and the server fail separately: a dead line is closed and
 * reopened with backoff (0.5 s doubling to 10 s, reset once the device
 * answers a whole cycle); a server that fails leaves the line open and
 * polled, and is tried again with backoff (1 s doubling to 30 s). Each
 * change of state is one log line, naming the URL and the cause.
 */
export class Bridge {
  private readonly timers: Timers;
  private readonly log: (line: string) => void;
  private readonly error: (line: string) => void;
  private readonly courier: RecordCourier;
  private readonly device: DialectDevice;
  private link: DialectLine | null = null;
  private port: SerialLine | null = null;
  private stopped = false;
  private backoff: number;
  private lineDown: string | null = null;
  /** Tries to reopen the line since it went down. */
  private downTries = 0;
  private sleeping = 0;

  constructor(private readonly options: BridgeOptions) {
    const { dialect } = options;
    this.timers = options.timers ?? realTimers;
    this.log = options.log ?? (() => undefined);
    this.error = options.error ?? this.log;
    this.backoff = this.minBackoffMs;
    this.courier = courierOf(options, {
      timers: this.timers,
      log: this.log,
      error: this.error,
      keptOn: dialect.recordsKeptOn,
    });
    this.device = dialect.create({
      state: options.state,
      timers: this.timers,
      answerTimeoutMs: options.answerTimeoutMs ?? dialect.answerTimeoutMs,
      log: this.log,
      error: this.error,
      ...(options.debug ? { debug: options.debug } : {}),
      iso: () => this.iso(),
      hold: (kind, orderId, reason) => this.hold(kind, orderId, reason),
    });
  }

  /**
   * A batch close asked by the host, journaled before this resolves and
   * carried out at the next cycle, with an id the device closes by once
   * however often it hears it (a lost ACK, a restart before the answer).
   */
  async requestClose(): Promise<void> {
    const now = this.timers.now();
    await this.options.state.requestClose({
      closeId: `C${now.toString(36)}${randomBytes(3).toString('hex')}`,
      requestedAt: this.iso(),
    });
  }

  /**
   * Runs cycles until stop(); reopens the line after a failure of the line or the device, logged with
   * its code. A journal failure ends the run (rejects).
   */
  async run(): Promise<void> {
    while (!this.stopped) {
      try {
        if (!this.link || this.link.isClosed) await this.connect();
        while (!this.stopped && this.link && !this.link.isClosed) {
          await this.cycle();
          // The device answered: the line works, whatever it did before.
          this.backoff = this.minBackoffMs;
          if (this.lineDown !== null) this.log('line up: the device answers again');
          this.lineDown = null;
          this.downTries = 0;
          await this.sleep(this.options.pollMs ?? COMMON_DEFAULTS.pollMs);
        }
      } catch (error) {
        if (this.stopped) break;
        if (hasCode(error, 'JOURNAL_FAILED')) return this.stopOnJournal(error);
        // A line fault, a device's refusal or answer out of step: reopening can mend each. The code says which.
        const cause = `${(error as Error).message} [${codeOf(error)}]`;
        this.downTries += 1;
        // Each try says why it failed: a line reopened and refused again must not read as healthy
        // (a wrong password, a dead device), and its reason is there at every retry.
        if (this.lineDown === null)
          this.log(`line down: ${cause}; reopening, backing off from ${this.backoff} ms to ${this.maxBackoffMs} ms`);
        else this.log(`line still down (try ${this.downTries}): ${cause}; reopening in ${this.backoff} ms`);
        this.lineDown = cause;
      }
      await this.disconnect();
      if (this.stopped) break;
      await this.sleep(this.backoff);
      this.backoff = Math.min(this.maxBackoffMs, this.backoff * 2);
    }
    await this.disconnect();
  }

  /**
   * The journal could not be written or read: the bridge no longer knows
   * what it asked or holds, so going on would guess about money. It says
   * so, closes the line and ends the run with the error (the command exits 1).
   */
  private async stopOnJournal(error: Error): Promise<never> {
    this.error(
      `journal failure [JOURNAL_FAILED]: ${error.message}; the bridge stops: fix the state directory and start it again`,
    );
    await this.disconnect();
    throw error;
  }

  stop(): Promise<void> {
    this.stopped = true;
    return this.disconnect();
  }

  /** Whether the run loop is waiting out a pause (between cycles, or backing off): nothing of a cycle is under way. */
  get isAsleep(): boolean {
    return this.sleeping > 0;
  }

  /** Opens the line (if needed) and runs one cycle; for tests and one-shot use. */
  async cycle(): Promise<CycleResult> {
    if (!this.link || this.link.isClosed) await this.connect();
    await this.device.establish();
    const result: CycleResult = { charged: 0, voided: 0, delivered: 0, blocked: false };
    if (this.courier.usable()) {
      result.charged = await this.courier.step('listing orders', () => this.askAll('charge', result), 0);
      result.voided = await this.courier.step('listing orders', () => this.askAll('void', result), 0);
    }
    const close = await this.options.state.pendingClose();
    if (close) await this.device.close(close);
    await this.deliver(result);
    return result;
  }

  /** Asks the device for each of the server's orders of `kind` it may be asked for; answers how many it took. */
  private async askAll(kind: AskKind, result: CycleResult): Promise<number> {
    const orders = await this.courier.listOrders<OrderToAsk>(kind === 'charge' ? 'PENDING' : 'VOID_PENDING');
    let asked = 0;
    for (const order of orders) {
      if (this.stopped) break;
      const decided = await this.operatorSays(kind, order.orderId);
      if (decided === 'wait') continue;
      // An operator's resend goes as it is; otherwise the device's word on an earlier ask decides.
      if (decided === 'free' && (await this.device.lastOutcome(kind, order)) !== 'ask') continue;
      const outcome = await this.device[kind](order);
      if (!outcome.asked) continue;
      asked += 1;
      if (outcome.recorded) await this.deliver(result);
    }
    return asked;
  }

  /**
   * Whether an order may go to the device, by what an operator said of it:
   * free when nothing is held; while it is held, not until the operator
   * decides; then as decided (a discarded one is not asked again by itself).
   */
  private async operatorSays(kind: AskKind, orderId: string): Promise<'free' | 'wait' | 'resend'> {
    const { state, dialect } = this.options;
    const key = askKey(kind, orderId);
    const held = await state.heldAsk(key);
    if (!held) return 'free';
    const decision = await state.askDecision(key);
    if (!decision) return 'wait';
    const resend = decision.action === 'resend';
    await state.releaseAsk(held, decision, resend ? 'asked again' : 'not asked again');
    const word = dialect.words[kind];
    this.log(
      `held ${word} of ${orderId}: ${resend ? `sending it to the ${dialect.deviceName} again` : `discarded (${decision.reason ?? 'no reason'}); the order stays open on the server`} by operator decision`,
    );
    if (resend) return 'resend';
    await this.device.discarded(kind, orderId);
    return 'wait';
  }

  private async hold(kind: AskKind, orderId: string, reason: string): Promise<void> {
    const { state, dialect } = this.options;
    const key = askKey(kind, orderId);
    await state.holdAsk({ key, kind, orderId, reason, heldAt: this.iso() });
    this.error(
      `HELD ${dialect.words[kind]} of ${orderId}: ${reason}. Decide with: ${state.heldCommand()} resend ${key}  (or: discard ${key} --reason "…")`,
    );
  }

  /** The money records to the server, oldest first; each is done with once the server holds it. */
  private async deliver(result: CycleResult): Promise<void> {
    for (;;) {
      const record = await this.device.nextRecord();
      if (!record) return;
      const outcome = await this.courier.handleRecord(record);
      if (outcome === 'wait') return;
      if (outcome === 'blocked') return void (result.blocked = true);
      await this.device.recordDelivered(record);
      result.delivered += 1;
    }
  }

  private get minBackoffMs(): number {
    return this.options.minBackoffMs ?? COMMON_DEFAULTS.minBackoffMs;
  }

  private get maxBackoffMs(): number {
    return this.options.maxBackoffMs ?? COMMON_DEFAULTS.maxBackoffMs;
  }

  private iso(): string {
    return new Date(this.timers.now()).toISOString();
  }

  private async connect(): Promise<void> {
    const port = await this.options.open();
    this.port = port;
    this.link = this.device.connect(port);
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
    this.sleeping += 1;
    return new Promise((resolve) =>
      this.timers.setTimeout(() => {
        this.sleeping -= 1;
        resolve();
      }, ms),
    );
  }
}
