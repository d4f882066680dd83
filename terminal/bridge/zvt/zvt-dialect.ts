import type { Duplex } from 'node:stream';
import { bcdNumber, packBcd } from '../../protocol/zvt/bcd.js';
import { encodeFields } from '../../protocol/zvt/bitmaps.js';
import { SerialZvtLine, TcpZvtLine, type ZvtLine } from '../../protocol/zvt/line.js';
import { command, CONFIG, ERRORS, POSITIVE, refused } from '../../protocol/zvt/messages.js';
import type { PendingClose } from '../bridge-state.js';
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
import type { MoneyRecord } from '../money-record.js';
import { EcrSession, type Transaction } from './ecr-session.js';
import { authorizationOf, NUMERIC_CURRENCIES, readStatus, type StatusReading } from './status-reading.js';
import type { InFlight, ZvtJournal } from './zvt-journal.js';

// A ZVT payment terminal (PA00P015), the bridge its cash register
// (terminal/README.md, "A ZVT payment terminal"): it registers, sells each
// PENDING order (06 01), reverses a VOID_PENDING one by its payment's
// receipt number (06 30; after an end of day, B5, by refund 06 31), runs
// the end of day (06 50) as the batch close, and polls with status
// enquiries (05 01). Every transaction is journaled before it goes on the
// line, and the terminal's status information before it is acknowledged;
// a payment counts once the terminal completes it, or, after a kill or a
// line fault, on the terminal's own word (repeat receipt, 06 20): never on
// a guess.

export const ZVT_DEFAULTS = {
  answerTimeoutMs: 5000,
  /** Intermediate status wanted; amounts and administration only from the cash register; the terminal prints its receipts. */
  configByte: CONFIG.intermediateStatus | CONFIG.ecrControlsPayment | CONFIG.ecrControlsAdmin,
  password: '000000',
};

export interface ZvtDialectOptions {
  journal: ZvtJournal;
  transport: 'serial' | 'tcp';
  password?: string;
  /** T4: how long the terminal may stay silent while it is master (default 180 s). */
  masterTimeoutMs?: number;
}

export function zvtDialect(options: ZvtDialectOptions): DialectDefinition {
  return {
    name: 'zvt',
    deviceName: 'terminal',
    words: { charge: 'payment', void: 'reversal' },
    recordsKeptOn: 'journal',
    answerTimeoutMs: ZVT_DEFAULTS.answerTimeoutMs,
    create: (context) => new ZvtTerminalDevice(context, options),
  };
}

const hex2 = (code: number) => code.toString(16).padStart(2, '0').toUpperCase();

class ZvtTerminalDevice implements DialectDevice {
  private readonly session: EcrSession;
  private readonly password: Buffer;
  private line: ZvtLine | null = null;
  private registeredOn: ZvtLine | null = null;

  constructor(
    private readonly context: DialectContext,
    private readonly options: ZvtDialectOptions,
  ) {
    this.session = new EcrSession(context.log, context.timers, context.answerTimeoutMs, options.masterTimeoutMs);
    this.password = packBcd(options.password ?? ZVT_DEFAULTS.password);
  }

  private get journal(): ZvtJournal {
    return this.options.journal;
  }

  connect(stream: Duplex): DialectLine {
    const lineOptions = { timers: this.context.timers, ...(this.context.debug ? { debug: this.context.debug } : {}) };
    const line =
      this.options.transport === 'tcp' ? new TcpZvtLine(stream, lineOptions) : new SerialZvtLine(stream, lineOptions);
    this.line = line;
    this.session.attach(line);
    return line;
  }

  async establish(): Promise<void> {
    if (this.registeredOn !== this.line) await this.register();
    const status = await this.session.transact(command('statusEnquiry', this.password), true);
    if (status.outcome === 'refused')
      throw new Error(`the terminal refused the status enquiry: 84 ${hex2(status.error)}`);
    const terminalStatus = status.outcome === 'completed' ? status.data[status.data.length - 1] : undefined;
    if (terminalStatus !== undefined && terminalStatus !== 0x00)
      this.context.debug?.(`terminal status ${hex2(terminalStatus)}`);
    const { inFlight } = this.journal;
    if (inFlight) await this.settleUnanswered(inFlight);
  }

  private async register(): Promise<void> {
    const data = Buffer.concat([this.password, Buffer.of(ZVT_DEFAULTS.configByte), bcdNumber(978, 2)]);
    const registration = await this.session.transact(command('registration', data), true);
    if (registration.outcome === 'refused') {
      const why =
        registration.error === ERRORS.wrongPassword
          ? 'a wrong password (--password)'
          : `84 ${hex2(registration.error)}`;
      throw new Error(`the terminal refused the registration: ${why}`);
    }
    this.registeredOn = this.line;
    this.context.log('registered with the terminal');
  }

  async lastOutcome(kind: AskKind, order: OrderToAsk): Promise<KnownAsk> {
    const { state, log } = this.context;
    if (kind === 'void') {
      if (this.journal.payment(order.orderId)?.voided) return 'asked';
      return this.journal.declined(`void:${order.orderId}`) ? 'declined' : 'ask';
    }
    if (this.journal.payment(order.orderId)) return 'asked';
    if (!this.journal.declined(`payment:${order.orderId}`)) return 'ask';
    if (!(await state.retryRequested(order.orderId))) return 'declined';
    await this.journal.clearDeclined(`payment:${order.orderId}`);
    await state.retryTaken(order.orderId);
    log(`payment ${order.orderId}: retried by the cashier`);
    return 'ask';
  }

  async charge(order: OrderToAsk): Promise<AskOutcome> {
    const numeric = NUMERIC_CURRENCIES[order.currency];
    if (
      numeric === undefined ||
      !Number.isSafeInteger(order.amount) ||
      order.amount <= 0 ||
      order.amount > 999_999_999_999
    ) {
      await this.context.hold(
        'charge',
        order.orderId,
        numeric === undefined
          ? `the order's currency ${order.currency} has no numeric code this bridge knows; it is not converted`
          : `the amount ${order.amount} cannot be carried in bitmap 04 (6 bytes of BCD, minor units)`,
      );
      return { asked: false };
    }
    const asked: InFlight = {
      kind: 'payment',
      orderId: order.orderId,
      amount: order.amount,
      currency: order.currency,
      startedAt: this.context.iso(),
    };
    await this.journal.begin(asked);
    this.context.log(`payment ${order.orderId}: ${order.amount} ${order.currency} (minor units) on the terminal`);
    const data = encodeFields([
      { bmp: 0x04, value: bcdNumber(order.amount, 6) },
      { bmp: 0x49, value: bcdNumber(numeric, 2) },
    ]);
    const done = await this.journaled(
      command('authorisation', data),
      `payment ${order.orderId}`,
      (reading) => reading.resultCode !== 0 || reading.amount === order.amount,
    );
    return (await this.settlePayment(asked, done)) ? { asked: true, recorded: true } : { asked: false };
  }

  async refund(order: OrderToAsk): Promise<AskOutcome> {
    const payment = this.journal.payment(order.orderId);
    if (!payment) {
      await this.context.hold(
        'void',
        order.orderId,
        'the bridge has no payment of this order on the terminal (made by another cash register, or before its journal), so it cannot name the receipt to reverse',
      );
      return { asked: false };
    }
    if (payment.closed) return this.refundAfterEndOfDay(order.orderId);
    const asked: InFlight = {
      kind: 'reversal',
      orderId: order.orderId,
      receipt: payment.receipt,
      amount: payment.amount,
      startedAt: this.context.iso(),
    };
    await this.journal.begin(asked);
    return (await this.reverse(asked)) ? { asked: true, recorded: true } : { asked: false };
  }

  async discarded(kind: AskKind, orderId: string): Promise<void> {
    await this.journal.decline(`${kind === 'charge' ? 'payment' : 'void'}:${orderId}`, 'discarded', this.context.iso());
  }

  async close(close: PendingClose): Promise<void> {
    const { state, iso, error } = this.context;
    if (this.journal.inFlight) return;
    if (this.journal.snapshot.lastCloseId === close.closeId) return void (await state.closeDone(close, iso()));
    const asked: InFlight = {
      kind: 'end-of-day',
      closeId: close.closeId,
      batchNumber: this.journal.nextBatchNumber,
      startedAt: iso(),
    };
    await this.journal.begin(asked);
    const done = await this.journaled(
      command('endOfDay', this.password),
      'end of day',
      (reading) => reading.resultCode !== 0 || reading.endOfDay !== undefined,
    );
    const status = this.statusOfInFlight();
    if (done.outcome !== 'refused' && status?.endOfDay && status.resultCode === 0)
      return this.finishClose(asked, status);
    await this.journal.settled();
    await state.closeDone(close, iso());
    error(
      `the terminal did not run the end of day (${done.outcome === 'refused' ? `84 ${hex2(done.error)}` : done.outcome === 'aborted' ? `06 1E ${hex2(done.resultCode)}` : 'no totals'}); type close (or wait for --close-at) to try again`,
    );
  }

  async nextRecord(): Promise<MoneyRecord | null> {
    return this.journal.snapshot.outbox[0] ?? null;
  }

  async recordDelivered(record: MoneyRecord): Promise<void> {
    await this.journal.delivered(record.seq);
  }

  /**
   * Runs a transaction whose status information is journaled before it is
   * acknowledged. Status information that is not this transaction's (another
   * amount, or not an end of day's totals) is refused, so the terminal
   * reverses it: never journaled, never committed as this one.
   */
  private journaled(
    message: ReturnType<typeof command>,
    what: string,
    belongs: (reading: StatusReading) => boolean,
  ): Promise<Transaction> {
    return this.session.transact(message, true, {
      onStatus: async (fields) => {
        const reading = readStatus(fields);
        if (!belongs(reading)) {
          this.context.error(
            `${what}: status information that is not its own (amount ${reading.amount ?? 'none'}, receipt ${reading.receipt ?? 'none'}): refused, so the terminal reverses it`,
          );
          return refused(ERRORS.functionNotPossible);
        }
        await this.journal.statusCame(reading);
        return POSITIVE;
      },
      onIntermediate: (status) => this.context.debug?.(`${what}: intermediate status ${hex2(status)}`),
    });
  }

  /** The status information journaled for the transaction in flight, if it came. */
  private statusOfInFlight(): StatusReading | undefined {
    return this.journal.inFlight?.status;
  }

  /** A payment's end: completed with an approval, declined, or refused; answers whether it was paid. */
  private async settlePayment(asked: Extract<InFlight, { kind: 'payment' }>, done: Transaction): Promise<boolean> {
    const { log, error, state, hold, iso } = this.context;
    const status = this.statusOfInFlight();
    if (done.outcome === 'completed' && status?.resultCode === 0) {
      await this.paid(asked, status);
      return true;
    }
    if (done.outcome === 'refused' || done.outcome === 'aborted') {
      const code = done.outcome === 'refused' ? done.error : done.resultCode;
      if (code === ERRORS.wrongCurrency) {
        await this.journal.settled();
        await hold('charge', asked.orderId, `the terminal does not take ${asked.currency} (06 1E 6F)`);
        return false;
      }
      await this.journal.decline(`payment:${asked.orderId}`, hex2(code), iso());
      error(
        `payment ${asked.orderId} not made on the terminal (result ${hex2(code)}). The order stays PENDING and is not sent again by itself; ` +
          `to try another card: svc-terminal retry ${asked.orderId} --state ${state.stateDir} --serial ${state.serial}`,
      );
      return false;
    }
    // Completed without an approval: the terminal's own word decides.
    log(`payment ${asked.orderId}: completed without an approved status information; asking the terminal`);
    return this.settleFromReceipt(asked);
  }

  private async paid(asked: Extract<InFlight, { kind: 'payment' }>, status: StatusReading): Promise<void> {
    const authorizationCode = authorizationOf(status);
    await this.journal.paid({
      orderId: asked.orderId,
      amount: asked.amount,
      currency: asked.currency,
      receipt: status.receipt ?? 0,
      trace: status.trace ?? 0,
      authorizationCode,
      paidAt: this.context.iso(),
    });
    this.context.log(
      `payment ${asked.orderId} approved: receipt ${status.receipt ?? '?'}, trace ${status.trace ?? '?'}, authorization ${authorizationCode}; committing it on the server`,
    );
  }

  private async reverse(asked: Extract<InFlight, { kind: 'reversal' }>): Promise<boolean> {
    const data = Buffer.concat([
      this.password,
      encodeFields([
        { bmp: 0x87, value: bcdNumber(asked.receipt, 2) },
        { bmp: 0x04, value: bcdNumber(asked.amount, 6) },
      ]),
    ]);
    const done = await this.journaled(
      command('reversal', data),
      `reversal ${asked.orderId}`,
      (reading) => reading.resultCode !== 0 || reading.amount === asked.amount,
    );
    const status = this.statusOfInFlight();
    if (done.outcome === 'completed' && status?.resultCode === 0) {
      await this.journal.voided(asked.orderId, 'reversal', this.context.iso(), status);
      this.context.log(
        `reversal of ${asked.orderId} (receipt ${asked.receipt}) done; committing the void on the server`,
      );
      return true;
    }
    const code =
      done.outcome === 'refused' ? done.error : done.outcome === 'aborted' ? done.resultCode : status?.resultCode;
    if (code === ERRORS.alreadyReversed) {
      await this.journal.voided(asked.orderId, 'reversal', this.context.iso());
      this.context.log(
        `reversal of ${asked.orderId}: the terminal says already reversed (B4), so it was; committing the void`,
      );
      return true;
    }
    await this.journal.settled();
    if (code === ERRORS.reversalNotPossible) {
      this.context.log(`reversal of ${asked.orderId}: no longer in the terminal's turnover (B5); refunding instead`);
      await this.journal.markClosed(asked.orderId);
      return (await this.refundAfterEndOfDay(asked.orderId)).asked;
    }
    await this.context.hold(
      'void',
      asked.orderId,
      `the terminal refused the reversal of receipt ${asked.receipt} (${code === undefined ? 'no result' : hex2(code)})`,
    );
    return false;
  }

  private async refundAfterEndOfDay(orderId: string): Promise<AskOutcome> {
    const order = { orderId };
    const payment = this.journal.payment(orderId)!;
    const asked: InFlight = {
      kind: 'refund',
      orderId,
      amount: payment.amount,
      currency: payment.currency,
      startedAt: this.context.iso(),
    };
    await this.journal.begin(asked);
    const data = Buffer.concat([
      this.password,
      encodeFields([
        { bmp: 0x04, value: bcdNumber(payment.amount, 6) },
        { bmp: 0x49, value: bcdNumber(NUMERIC_CURRENCIES[payment.currency] ?? 978, 2) },
      ]),
    ]);
    const done = await this.journaled(
      command('refund', data),
      `refund ${order.orderId}`,
      (reading) => reading.resultCode !== 0 || reading.amount === payment.amount,
    );
    const status = this.statusOfInFlight();
    if (done.outcome === 'completed' && status?.resultCode === 0) {
      await this.journal.voided(order.orderId, 'refund', this.context.iso(), status);
      this.context.log(`refund of ${order.orderId} (closed by an end of day) done; committing the void on the server`);
      return { asked: true, recorded: true };
    }
    await this.journal.settled();
    const code =
      done.outcome === 'refused' ? done.error : done.outcome === 'aborted' ? done.resultCode : status?.resultCode;
    await this.context.hold(
      'void',
      order.orderId,
      `the terminal did not refund it (${code === undefined ? 'no result' : hex2(code)})`,
    );
    return { asked: false };
  }

  private async finishClose(asked: Extract<InFlight, { kind: 'end-of-day' }>, status: StatusReading): Promise<void> {
    const { state, log, iso } = this.context;
    const totals = status.endOfDay ?? { count: 0, total: 0 };
    // The turnover's currency: its payments' (a terminal keeps one), euro when it held none.
    const open = Object.values(this.journal.snapshot.payments).find((payment) => !payment.closed);
    await this.journal.closed(asked, totals, open?.currency ?? 'EUR', state.serial, iso());
    const pending = await state.pendingClose();
    if (pending?.closeId === asked.closeId) await state.closeDone(pending, iso());
    log(
      `end of day on the terminal: batch ${asked.batchNumber}, ${totals.count} transaction(s), ${totals.total} minor units; sending the settlement`,
    );
  }

  /**
   * The transaction a kill or a line fault cut off, settled from the
   * terminal's own word before anything else goes on the line.
   */
  private async settleUnanswered(inFlight: InFlight): Promise<void> {
    const { log } = this.context;
    if (inFlight.kind === 'reversal') {
      log(
        `the reversal of ${inFlight.orderId} (receipt ${inFlight.receipt}) had no end: sending it again (the terminal reverses a receipt once: B4)`,
      );
      await this.reverse(inFlight);
      return;
    }
    if (inFlight.kind === 'end-of-day') return this.settleEndOfDay(inFlight);
    if (inFlight.kind === 'refund' && !inFlight.status) {
      log(
        `the refund of ${inFlight.orderId} had no status information: the terminal stored nothing (PA00P015 §2.2.8); it goes again`,
      );
      return this.journal.settled();
    }
    if (inFlight.kind === 'payment' && !inFlight.status) {
      log(
        `the payment of ${inFlight.orderId} had no status information: the terminal stored nothing (PA00P015 §2.2.8); the order stays PENDING and is sold again`,
      );
      return this.journal.settled();
    }
    await this.settleFromReceipt(inFlight);
  }

  /** The terminal's last stored receipt (06 20, status information asked, nothing printed) says whether the transaction counts. */
  private async settleFromReceipt(inFlight: Extract<InFlight, { kind: 'payment' | 'refund' }>): Promise<boolean> {
    const { log, hold } = this.context;
    const last = await this.lastReceipt();
    const mine = inFlight.status;
    const what = `the ${inFlight.kind} of ${inFlight.orderId}`;
    if (last === 'unknown' || !mine?.receipt) {
      await this.journal.settled();
      await hold(
        inFlight.kind === 'payment' ? 'charge' : 'void',
        inFlight.orderId,
        `${what} was acknowledged but its end was cut off, and the terminal cannot say what became of it (no repeat receipt)`,
      );
      return false;
    }
    if (
      last &&
      last.receipt === mine.receipt &&
      last.trace === mine.trace &&
      last.amount === inFlight.amount &&
      last.resultCode === 0
    ) {
      log(`${what} had no end; the terminal's last receipt (${mine.receipt}) is it: it was stored`);
      if (inFlight.kind === 'payment') await this.paid(inFlight, mine);
      else await this.journal.voided(inFlight.orderId, 'refund', this.context.iso(), mine);
      return true;
    }
    log(
      `${what} had no end; the terminal's last receipt is ${last ? last.receipt : 'none'}, not ${mine.receipt}: it reversed it by itself, so it was not made`,
    );
    await this.journal.settled();
    return false;
  }

  private async settleEndOfDay(inFlight: Extract<InFlight, { kind: 'end-of-day' }>): Promise<void> {
    const { log } = this.context;
    if (inFlight.status?.endOfDay) return this.finishClose(inFlight, inFlight.status);
    const last = await this.lastReceipt();
    if (last && last !== 'unknown' && last.endOfDay && (last.trace ?? 0) > this.journal.snapshot.lastTrace) {
      log(`the end of day had no end; the terminal's last receipt is a newer end of day: it ran`);
      return this.finishClose(inFlight, last);
    }
    log('the end of day had no end, and the terminal shows no newer one: it did not run; it goes again');
    await this.journal.settled();
  }

  /** The last stored receipt's status information; null when the terminal has none, 'unknown' when it cannot say. */
  private async lastReceipt(): Promise<StatusReading | null | 'unknown'> {
    const data = Buffer.concat([this.password, encodeFields([{ bmp: 0x03, value: Buffer.of(0x03) }])]);
    const repeated = await this.session.transact(command('repeatReceipt', data), true, {
      onStatus: async () => POSITIVE, // asked for (service byte bit 0): the receipt repeated, nothing to store
    });
    if (repeated.outcome === 'refused') return 'unknown';
    const fields = repeated.statuses[repeated.statuses.length - 1];
    if (!fields)
      return repeated.outcome === 'aborted' && repeated.resultCode === ERRORS.functionNotPossible ? null : 'unknown';
    const reading = readStatus(fields);
    return reading;
  }
}
