import { BridgeError, hasCode } from '../../errors.js';
import { decodeMessage, encodeMessage, type Message } from '../../protocol/svc/messages.js';
import type { MoneyRecord } from '../money-record.js';
import { fromSvcRecord } from './svc-records.js';
import type { PendingClose } from '../bridge-state.js';
import { askKey } from '../bridge-state.js';
import type { Duplex } from 'node:stream';
import { framedSession, type DeviceCodec, type DeviceSession } from '../device-session.js';
import type {
  AskKind,
  AskOutcome,
  DialectContext,
  DialectDefinition,
  DialectDevice,
  DialectLine,
  KnownAsk,
  OrderToAsk,
} from '../dialect.js';

/**
 * Our own device's dialect (INTERFACE.md §9, docs/terminal/svc.md): a heartbeat
 * (0100); charges (0300) and voids (0320) asked, each remembered durably
 * before it goes on the line so a restarted bridge never asks twice, and
 * asked again only on the device's word that it never got it (0150/0160);
 * a batch close (0500) by an id the device closes once; and the money
 * records the device holds (0250), confirmed (0270) once the server holds
 * them, so the device keeps each until then.
 */
export const svcDialect: DialectDefinition = {
  name: 'svc',
  deviceName: 'device',
  words: { charge: 'charge', void: 'void' },
  recordsKeptOn: 'device',
  answerTimeoutMs: 3000,
  create: (context) => new SvcDevice(context),
};

const codec: DeviceCodec<Message, Message> = {
  encode: encodeMessage,
  decode: decodeMessage,
  deviceError: (message) =>
    message.code === '0990'
      ? new BridgeError('DEVICE_REFUSED', `device error ${message.errorCode}: ${message.text}`, {
          dialect: 'svc',
          deviceCode: message.errorCode,
        })
      : undefined,
};

/** The key an ask is remembered by in the bridge's state: the order's status on the server and its id. */
const askedKey = (kind: AskKind, orderId: string) => `${kind === 'charge' ? 'PENDING' : 'VOID_PENDING'}:${orderId}`;

class SvcDevice implements DialectDevice {
  /** Asks the device declined, already reported: not asked again, not queried every cycle. */
  private readonly declined = new Set<string>();
  private readonly session: DeviceSession<Message, Message>;
  readonly connect: (stream: Duplex) => DialectLine;

  constructor(private readonly context: DialectContext) {
    ({ session: this.session, connect: this.connect } = framedSession(codec, context, svcDialect.deviceName));
  }

  async establish(): Promise<void> {
    const status = await this.request({ code: '0100' }, ['0110']);
    this.context.debug?.(
      `device ${status.serial} firmware ${status.firmware}, ${status.pendingCount} record(s) pending`,
    );
  }

  /**
   * An ask recorded before, for an order still open, may never have reached
   * the device (cut off on the line, or the bridge killed after recording
   * it): it goes on the line again only on the device's word that it has
   * not got it (0160 unknown). A device that cannot say holds the ask for
   * an operator: never a second charge on a guess.
   */
  async lastOutcome(kind: AskKind, order: OrderToAsk): Promise<KnownAsk> {
    const { state, log } = this.context;
    if (!state.hasAsked(askedKey(kind, order.orderId))) return 'ask';
    const key = askKey(kind, order.orderId);
    if (this.declined.has(key)) return 'declined';
    let known: Message;
    try {
      known = await this.request({ code: '0150', kind, orderId: order.orderId }, ['0160']);
    } catch (error) {
      if (!hasCode(error, 'DEVICE_REFUSED')) throw error;
      await this.context.hold(
        kind,
        order.orderId,
        `the ask was recorded but the order is still open, and the device cannot say whether it got it (${error.message})`,
      );
      return 'held';
    }
    const said = known.code === '0160' ? known.state : 'unknown';
    if (said === 'unknown') {
      log(
        `the ${kind} of ${order.orderId} never reached the device (cut off on the line or by a restart): asking again`,
      );
      return 'ask';
    }
    if (said === 'declined') {
      this.declined.add(key);
      log(
        `the ${kind} of ${order.orderId} was declined at the terminal: not asked again; the order stays open on the server`,
      );
      return 'declined';
    }
    return 'asked';
  }

  charge(order: OrderToAsk): Promise<AskOutcome> {
    return this.ask(
      'charge',
      order,
      { code: '0300', orderId: order.orderId, amount: order.amount, currency: order.currency },
      '0310',
    );
  }

  void(order: OrderToAsk): Promise<AskOutcome> {
    return this.ask('void', order, { code: '0320', orderId: order.orderId }, '0330');
  }

  async discarded(kind: AskKind, orderId: string): Promise<void> {
    this.declined.add(askKey(kind, orderId));
  }

  async close(close: PendingClose): Promise<void> {
    const { state, log, iso } = this.context;
    const closed = await this.request({ code: '0500', closeId: close.closeId }, ['0510']);
    await state.closeDone(close, iso());
    log(
      closed.code === '0510' && closed.rc === '00'
        ? `batch close ${close.closeId} done by the device`
        : `the device refused the batch close: ${encodeMessage(closed)}`,
    );
  }

  async nextRecord(): Promise<MoneyRecord | null> {
    const next = await this.request({ code: '0250' }, ['0210', '0230', '0520', '0260']);
    return next.code === '0260' ? null : fromSvcRecord(next);
  }

  async recordDelivered(record: MoneyRecord): Promise<void> {
    const confirmed = await this.request({ code: '0270', seq: record.seq }, ['0280']);
    if (confirmed.code !== '0280' || confirmed.seq !== record.seq)
      throw new BridgeError(
        'DEVICE_OUT_OF_STEP',
        `the device confirmed ${JSON.stringify(confirmed)} instead of ${record.seq}`,
        {
          dialect: 'svc',
        },
      );
  }

  private async ask(kind: AskKind, order: OrderToAsk, message: Message, answer: '0310' | '0330'): Promise<AskOutcome> {
    const { state, log, error, iso } = this.context;
    const key = askedKey(kind, order.orderId);
    // Durable before it goes on the line: a bridge restarted after this point never asks blindly again.
    if (!state.hasAsked(key)) await state.markAsked(key, iso());
    const reply = await this.request(message, [answer]);
    const rc = (reply as { rc?: string }).rc;
    if (rc === '00') {
      log(`${kind} ${order.orderId} sent to the device`);
      return { asked: true };
    }
    if (rc === '94')
      error(
        `the device says ${order.orderId} was already ${kind === 'charge' ? 'charged' : 'voided'} (rc 94): not asked again; its record is on the device or already delivered`,
      );
    else error(`the device refused ${encodeMessage(message)}: ${encodeMessage(reply)}`);
    return { asked: false };
  }

  private request<C extends Message['code']>(message: Message, expect: readonly C[]) {
    const timeoutMs = this.context.answerTimeoutMs;
    return this.session.request(message, expect, timeoutMs);
  }
}
