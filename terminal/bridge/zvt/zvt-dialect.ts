import { BridgeError } from '../../errors.js';
import type { Duplex } from 'node:stream';
import { codeHex } from '../../protocol/zvt/apdu.js';
import { bcdNumber, packBcd } from '../../protocol/zvt/bcd.js';
import { encodeFields } from '../../protocol/zvt/bitmaps.js';
import { SerialZvtLine, TcpZvtLine, type ZvtLine } from '../../protocol/zvt/line.js';
import { command, CONFIG, ERRORS, TERMINAL_STATUS } from '../../protocol/zvt/messages.js';
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
import { EcrSession } from './ecr-session.js';
import { currencyOf, EUR } from '../../protocol/currencies.js';
import type { ZvtInFlight, ZvtJournal } from './zvt-journal.js';
import { ZvtTransactions } from './zvt-transactions.js';

// A ZVT payment terminal (PA00P015), the bridge its cash register
// (docs/terminal/zvt.md): it registers, sells each
// PENDING order (06 01), reverses a VOID_PENDING one by its payment's
// receipt number (06 30; after an end of day, B5, by refund 06 31), runs
// the end of day (06 50) as the batch close, and polls with status
// enquiries (05 01). Every transaction is journaled before it goes on the
// line, and the terminal's status information before it is acknowledged;
// a payment counts once the terminal completes it, or, after a kill or a
// line fault, on the terminal's own word (repeat receipt, 06 20): never on
// a guess. The transactions and their recovery are in zvt-transactions.ts.

export const ZVT_DEFAULTS = {
  answerTimeoutMs: 5000,
  /** Intermediate status wanted; amounts and administration only from the cash register; the terminal prints its receipts. */
  configByte: CONFIG.intermediateStatus | CONFIG.ecrControlsPayment | CONFIG.ecrControlsAdmin,
  password: '000000',
};

/** Terminal statuses (PA00P015 §11) the bridge clears by itself, and how. */
const SERVICE_FOR_STATUS: Readonly<
  Record<number, { event: 'initialisation' | 'diagnosis'; command: string; why: string }>
> = {
  [TERMINAL_STATUS.initialisationRequired]: {
    event: 'initialisation',
    command: '06 93',
    why: 'initialisation required',
  },
  [TERMINAL_STATUS.diagnosisRequired]: { event: 'diagnosis', command: '06 70', why: 'diagnosis required' },
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

class ZvtTerminalDevice implements DialectDevice {
  private readonly session: EcrSession;
  private readonly password: Buffer;
  private readonly transactions: ZvtTransactions;
  private line: ZvtLine | null = null;
  private registeredOn: ZvtLine | null = null;

  constructor(
    private readonly context: DialectContext,
    private readonly options: ZvtDialectOptions,
  ) {
    this.session = new EcrSession(context.log, context.timers, context.answerTimeoutMs, options.masterTimeoutMs);
    this.password = packBcd(options.password ?? ZVT_DEFAULTS.password);
    this.transactions = new ZvtTransactions(context, this.session, this.password, options.journal);
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
      throw new BridgeError('DEVICE_REFUSED', `the terminal refused the status enquiry: 84 ${codeHex(status.error)}`, {
        dialect: 'zvt',
        deviceCode: codeHex(status.error),
      });
    const terminalStatus = status.outcome === 'completed' ? status.data[status.data.length - 1] : undefined;
    if (terminalStatus !== undefined && terminalStatus !== 0x00)
      this.context.debug?.(`terminal status ${codeHex(terminalStatus)}`);
    // First: a terminal that needs its host takes nothing else (not even a reversal to settle one in flight).
    const service = terminalStatus === undefined ? undefined : SERVICE_FOR_STATUS[terminalStatus];
    if (service) await this.service(service, terminalStatus!);
    const { inFlight } = this.journal;
    if (inFlight) await this.transactions.resolveUnanswered(inFlight);
  }

  /**
   * The terminal's status asks for its host: the bridge runs the initialisation or diagnosis itself, journals it and
   * tells the operator. Failed, the cycle fails (the terminal takes no money until it succeeds) and is tried again.
   */
  private async service(service: (typeof SERVICE_FOR_STATUS)[number], status: number): Promise<void> {
    const { log, error, iso } = this.context;
    const code = codeHex(status);
    log(`the terminal reports status ${code} (${service.why}): running its ${service.event} (${service.command})`);
    const done = await this.session.transact(
      service.event === 'initialisation' ? command('initialisation', this.password) : command('diagnosis'),
      true,
    );
    const outcome =
      done.outcome === 'completed'
        ? 'done'
        : done.outcome === 'refused'
          ? `refused 84 ${codeHex(done.error)}`
          : `aborted 06 1E ${codeHex(done.resultCode)}`;
    await this.journal.serviced(service.event, code, outcome, iso());
    if (done.outcome !== 'completed') {
      error(`the terminal's ${service.event} failed (${outcome}); it takes no payment until it succeeds`);
      throw new BridgeError('DEVICE_REFUSED', `the terminal's ${service.event} failed (${outcome})`, {
        dialect: 'zvt',
      });
    }
    log(`${service.event} done: the terminal is ready again`);
  }

  private async register(): Promise<void> {
    const data = Buffer.concat([this.password, Buffer.of(ZVT_DEFAULTS.configByte), bcdNumber(EUR.numeric, 2)]);
    const registration = await this.session.transact(command('registration', data), true);
    if (registration.outcome === 'refused') {
      const why =
        registration.error === ERRORS.wrongPassword
          ? 'a wrong password (--password)'
          : `84 ${codeHex(registration.error)}`;
      throw new BridgeError('DEVICE_REFUSED', `the terminal refused the registration: ${why}`, {
        dialect: 'zvt',
        deviceCode: codeHex(registration.error),
      });
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
    const numeric = currencyOf(order.currency)?.numeric;
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
    const asked: ZvtInFlight = {
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
    const done = await this.transactions.journaled(
      command('authorisation', data),
      `payment ${order.orderId}`,
      (reading) => reading.resultCode !== 0 || reading.amount === order.amount,
    );
    return (await this.transactions.recordPaymentEnd(asked, done)) ? { asked: true, recorded: true } : { asked: false };
  }

  async void(order: OrderToAsk): Promise<AskOutcome> {
    const payment = this.journal.payment(order.orderId);
    if (!payment) {
      await this.context.hold(
        'void',
        order.orderId,
        'the bridge has no payment of this order on the terminal (made by another cash register, or before its journal), so it cannot name the receipt to reverse',
      );
      return { asked: false };
    }
    if (payment.closed) return this.transactions.refundAfterEndOfDay(order.orderId);
    const asked: ZvtInFlight = {
      kind: 'reversal',
      orderId: order.orderId,
      receipt: payment.receipt,
      amount: payment.amount,
      startedAt: this.context.iso(),
    };
    await this.journal.begin(asked);
    return (await this.transactions.reverse(asked)) ? { asked: true, recorded: true } : { asked: false };
  }

  async discarded(kind: AskKind, orderId: string): Promise<void> {
    await this.journal.decline(`${kind === 'charge' ? 'payment' : 'void'}:${orderId}`, {
      resultCode: 'discarded',
      at: this.context.iso(),
    });
  }

  async close(close: PendingClose): Promise<void> {
    const { state, iso, error } = this.context;
    if (this.journal.inFlight) return;
    if (this.journal.snapshot.lastCloseId === close.closeId) return void (await state.closeDone(close, iso()));
    const asked: ZvtInFlight = {
      kind: 'end-of-day',
      closeId: close.closeId,
      batchNumber: this.journal.nextBatchNumber,
      startedAt: iso(),
    };
    await this.journal.begin(asked);
    const done = await this.transactions.journaled(
      command('endOfDay', this.password),
      'end of day',
      (reading) => reading.resultCode !== 0 || reading.endOfDay !== undefined,
    );
    const status = this.transactions.statusOfInFlight();
    if (done.outcome !== 'refused' && status?.endOfDay && status.resultCode === 0)
      return this.transactions.finishClose(asked, status);
    await this.journal.nothingInFlight();
    await state.closeDone(close, iso());
    error(
      `the terminal did not run the end of day (${done.outcome === 'refused' ? `84 ${codeHex(done.error)}` : done.outcome === 'aborted' ? `06 1E ${codeHex(done.resultCode)}` : 'no totals'}); type close (or wait for --close-at) to try again`,
    );
  }

  async nextRecord(): Promise<MoneyRecord | null> {
    return this.journal.snapshot.outbox[0] ?? null;
  }

  async recordDelivered(record: MoneyRecord): Promise<void> {
    await this.journal.delivered(record.seq);
  }
}
