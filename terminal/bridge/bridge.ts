import { randomBytes } from 'node:crypto';
import type { LinkError } from '../protocol/link.js';
import { decodeMessage, encodeMessage, type AskKind, type Message, type MessageCode, type RecordMessage } from '../protocol/messages.js';
import { askKey } from './bridge-state.js';
import { AnswerWaiter } from './answer-waiter.js';
import { COMMON_DEFAULTS, courierOf, lineOptionsOf, type CommonBridgeOptions } from './bridge-options.js';
import type { RecordCourier } from './courier.js';
import { LineDriver, type SerialLine } from './line-driver.js';

export type { SerialLine };

export const DEFAULTS = { answerTimeoutMs: 3000, ...COMMON_DEFAULTS };

export type BridgeOptions = CommonBridgeOptions;

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
export class Bridge extends LineDriver {
  private readonly error: (line: string) => void;
  private readonly courier: RecordCourier;
  private readonly answers: AnswerWaiter<Message>;
  /** Asks the device declined, already reported: not asked again, not queried every cycle. */
  private readonly declined = new Set<string>();

  constructor(private readonly options: BridgeOptions) {
    super(lineOptionsOf(options));
    this.error = options.error ?? this.log;
    this.courier = courierOf(options, { timers: this.timers, log: this.log, error: this.error, keptOn: 'device' });
    this.answers = new AnswerWaiter(this.timers);
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

  protected runCycle(): Promise<CycleResult> {
    return this.cycle();
  }

  /** Opens the line (if needed) and runs one cycle; for tests and one-shot use. */
  async cycle(): Promise<CycleResult> {
    await this.ensureConnected();
    const status = await this.request({ code: '0100' }, ['0110']);
    if (status.code === '0110') this.options.debug?.(`device ${status.serial} firmware ${status.firmware}, ${status.pendingCount} record(s) pending`);
    let charged = 0;
    let voided = 0;
    if (this.courier.usable()) {
      charged = await this.courier.step('listing orders', () => this.askDevice('PENDING', (order) => ({ code: '0300', orderId: order.orderId, amount: order.amount, currency: order.currency }), '0310'), 0);
      voided = await this.courier.step('listing orders', () => this.askDevice('VOID_PENDING', (order) => ({ code: '0320', orderId: order.orderId }), '0330'), 0);
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
      const outcome = await this.courier.handleRecord(record);
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

  private async askDevice(status: 'PENDING' | 'VOID_PENDING', ask: (order: { orderId: string; amount: number; currency: string }) => Message, answer: MessageCode): Promise<number> {
    const kind: AskKind = status === 'PENDING' ? 'charge' : 'void';
    const orders = await this.courier.listOrders<{ orderId: string; amount: number; currency: string }>(status);
    let asked = 0;
    for (const order of orders) {
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

  private request(message: Message, expect: MessageCode[]): Promise<Message> {
    const link = this.link;
    if (!link) throw new Error('no line');
    const timeoutMs = this.options.answerTimeoutMs ?? DEFAULTS.answerTimeoutMs;
    return this.answers.request(() => link.send(encodeMessage(message)), expect.join('/'), (answer) => expect.includes(answer.code), timeoutMs, `no answer to ${message.code} within ${timeoutMs} ms (--answer-timeout-ms)`);
  }

  protected onPayload(payload: string): void {
    let message: Message;
    try {
      message = decodeMessage(payload);
    } catch (error) {
      this.log(`unreadable message from the device: ${payload} (${(error as Error).message})`);
      return;
    }
    const awaited = this.answers.awaited;
    if (awaited === null) return this.log(`unexpected message from the device: ${payload}`);
    if (message.code === '0990') return this.answers.fail(new Error(`device error ${message.errorCode}: ${message.text}`));
    if (!this.answers.offer(message)) this.log(`ignored ${payload} while waiting for ${awaited}`);
  }

  protected onLineClosed(error: LinkError): void {
    this.answers.fail(error);
  }

}
