import { bcdNumber } from '../../protocol/zvt/bcd.js';
import { codeHex } from '../../protocol/zvt/apdu.js';
import { encodeFields } from '../../protocol/zvt/bitmaps.js';
import { command, ERRORS, POSITIVE, refused } from '../../protocol/zvt/messages.js';
import type { AskOutcome, DialectContext } from '../dialect.js';
import type { EcrSession, TransactionEnd } from './ecr-session.js';
import { authorizationOf, readStatus, type StatusReading } from './status-reading.js';
import { currencyOf, EUR } from '../../protocol/currencies.js';
import type { ZvtInFlight, ZvtJournal } from './zvt-journal.js';

/**
 * The ZVT bridge's transactions on the terminal, each journaled: its status
 * information before it is acknowledged, its end (paid, reversed, refunded,
 * closed) once the terminal completes it; and the settling of one that a
 * kill or a line fault cut off, from the terminal's own word (the repeat
 * receipt, 06 20), never from a guess.
 */
export class ZvtTransactions {
  constructor(
    private readonly context: DialectContext,
    private readonly session: EcrSession,
    private readonly password: Buffer,
    private readonly journal: ZvtJournal,
  ) {}

  /**
   * Runs a transaction whose status information is journaled before it is
   * acknowledged. Status information that is not this transaction's (another
   * amount, or not an end of day's totals) is refused, so the terminal
   * reverses it: never journaled, never committed as this one.
   */
  journaled(
    message: ReturnType<typeof command>,
    what: string,
    belongs: (reading: StatusReading) => boolean,
  ): Promise<TransactionEnd> {
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
      onIntermediate: (status) => this.context.debug?.(`${what}: intermediate status ${codeHex(status)}`),
    });
  }

  /** The status information journaled for the transaction in flight, if it came. */
  statusOfInFlight(): StatusReading | undefined {
    return this.journal.inFlight?.status;
  }

  /** A payment's end: completed with an approval, declined, or refused; answers whether it was paid. */
  async recordPaymentEnd(asked: Extract<ZvtInFlight, { kind: 'payment' }>, done: TransactionEnd): Promise<boolean> {
    const { log, error, state, hold, iso } = this.context;
    const status = this.statusOfInFlight();
    if (done.outcome === 'completed' && status?.resultCode === 0) {
      await this.paid(asked, status);
      return true;
    }
    if (done.outcome === 'refused' || done.outcome === 'aborted') {
      const code = done.outcome === 'refused' ? done.error : done.resultCode;
      if (code === ERRORS.wrongCurrency) {
        await this.journal.nothingInFlight();
        await hold('charge', asked.orderId, `the terminal does not take ${asked.currency} (06 1E 6F)`);
        return false;
      }
      await this.journal.decline(`payment:${asked.orderId}`, { resultCode: codeHex(code), at: iso() });
      error(
        `payment ${asked.orderId} not made on the terminal (result ${codeHex(code)}). The order stays PENDING and is not sent again by itself; ` +
          `to try another card: svc-terminal retry ${asked.orderId} --state ${state.stateDir} --serial ${state.serial}`,
      );
      return false;
    }
    // Completed without an approval: the terminal's own word decides.
    log(`payment ${asked.orderId}: completed without an approved status information; asking the terminal`);
    return this.resolveFromReceipt(asked);
  }

  private async paid(asked: Extract<ZvtInFlight, { kind: 'payment' }>, status: StatusReading): Promise<void> {
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

  async reverse(asked: Extract<ZvtInFlight, { kind: 'reversal' }>): Promise<boolean> {
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
    await this.journal.nothingInFlight();
    if (code === ERRORS.reversalNotPossible) {
      this.context.log(`reversal of ${asked.orderId}: no longer in the terminal's turnover (B5); refunding instead`);
      await this.journal.markClosed(asked.orderId);
      return (await this.refundAfterEndOfDay(asked.orderId)).asked;
    }
    await this.context.hold(
      'void',
      asked.orderId,
      `the terminal refused the reversal of receipt ${asked.receipt} (${code === undefined ? 'no result' : codeHex(code)})`,
    );
    return false;
  }

  async refundAfterEndOfDay(orderId: string): Promise<AskOutcome> {
    const order = { orderId };
    const payment = this.journal.payment(orderId)!;
    const asked: ZvtInFlight = {
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
        { bmp: 0x49, value: bcdNumber((currencyOf(payment.currency) ?? EUR).numeric, 2) },
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
    await this.journal.nothingInFlight();
    const code =
      done.outcome === 'refused' ? done.error : done.outcome === 'aborted' ? done.resultCode : status?.resultCode;
    await this.context.hold(
      'void',
      order.orderId,
      `the terminal did not refund it (${code === undefined ? 'no result' : codeHex(code)})`,
    );
    return { asked: false };
  }

  async finishClose(asked: Extract<ZvtInFlight, { kind: 'end-of-day' }>, status: StatusReading): Promise<void> {
    const { state, log, iso } = this.context;
    const totals = status.endOfDay ?? { count: 0, total: 0 };
    // The turnover's currency: its payments' (a terminal keeps one), euro when it held none.
    const open = Object.values(this.journal.snapshot.payments).find((payment) => !payment.closed);
    await this.journal.closed(asked, totals, open?.currency ?? EUR.alpha, state.serial, iso());
    const pending = await state.pendingClose();
    if (pending?.closeId === asked.closeId) await state.closeDone(pending, iso());
    log(
      `end of day on the terminal: batch ${asked.batchNumber}, ${totals.count} transaction(s), ${totals.total} minor units; sending the settlement`,
    );
  }

  /**
   * The transaction a kill or a line fault cut off, resolved from the
   * terminal's own word before anything else goes on the line.
   */
  async resolveUnanswered(inFlight: ZvtInFlight): Promise<void> {
    const { log } = this.context;
    if (inFlight.kind === 'reversal') {
      log(
        `the reversal of ${inFlight.orderId} (receipt ${inFlight.receipt}) had no end: sending it again (the terminal reverses a receipt once: B4)`,
      );
      await this.reverse(inFlight);
      return;
    }
    if (inFlight.kind === 'end-of-day') return this.resolveEndOfDay(inFlight);
    if (inFlight.kind === 'refund' && !inFlight.status) {
      log(
        `the refund of ${inFlight.orderId} had no status information: the terminal stored nothing (PA00P015 §2.2.8); it goes again`,
      );
      return this.journal.nothingInFlight();
    }
    if (inFlight.kind === 'payment' && !inFlight.status) {
      log(
        `the payment of ${inFlight.orderId} had no status information: the terminal stored nothing (PA00P015 §2.2.8); the order stays PENDING and is sold again`,
      );
      return this.journal.nothingInFlight();
    }
    await this.resolveFromReceipt(inFlight);
  }

  /** The terminal's last stored receipt (06 20, status information asked, nothing printed) says whether the transaction counts. */
  private async resolveFromReceipt(inFlight: Extract<ZvtInFlight, { kind: 'payment' | 'refund' }>): Promise<boolean> {
    const { log, hold } = this.context;
    const last = await this.lastReceipt();
    const mine = inFlight.status;
    const what = `the ${inFlight.kind} of ${inFlight.orderId}`;
    if (last === 'unknown' || !mine?.receipt) {
      await this.journal.nothingInFlight();
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
    await this.journal.nothingInFlight();
    return false;
  }

  private async resolveEndOfDay(inFlight: Extract<ZvtInFlight, { kind: 'end-of-day' }>): Promise<void> {
    const { log } = this.context;
    if (inFlight.status?.endOfDay) return this.finishClose(inFlight, inFlight.status);
    const last = await this.lastReceipt();
    if (last && last !== 'unknown' && last.endOfDay && (last.trace ?? 0) > this.journal.snapshot.lastTrace) {
      log(`the end of day had no end; the terminal's last receipt is a newer end of day: it ran`);
      return this.finishClose(inFlight, last);
    }
    log('the end of day had no end, and the terminal shows no newer one: it did not run; it goes again');
    await this.journal.nothingInFlight();
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
