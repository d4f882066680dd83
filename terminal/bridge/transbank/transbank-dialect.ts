import {
  decodeResponse,
  encodeRequest,
  type RequestCode,
  type ResponseCode,
  type TransbankMessage,
} from '../../protocol/transbank/messages.js';
import { describeResponseCode } from '../../protocol/transbank/response-codes.js';
import type { MoneyRecord } from '../money-record.js';
import type { Duplex } from 'node:stream';
import type { PendingClose } from '../bridge-state.js';
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
import type { SaleInFlight, SaleJournal } from './sale-journal.js';
import {
  closeHappened,
  lastSaleVerdict,
  refundAnswer,
  saleAmount,
  saleAnswer,
  totalsAnswer,
  type SaleVerdict,
} from './sale-rules.js';

type Request = TransbankMessage<RequestCode>;
type Response = TransbankMessage<ResponseCode>;
type Sale = Extract<SaleInFlight, { kind: 'sale' }>;
type Refund = Extract<SaleInFlight, { kind: 'refund' }>;
type Close = Extract<SaleInFlight, { kind: 'close' }>;

export const TRANSBANK_DEFAULTS = {
  answerTimeoutMs: 5000,
  /** A sale waits for a customer at the terminal: card, PIN, the authoriser. */
  saleTimeoutMs: 150_000,
};

/**
 * A Transbank POS Integrado, the bridge its cash register (docs/terminal/transbank.md):
 * each PENDING order is sold (a durable 6-character ticket each), each
 * VOID_PENDING one refunded by its sale's operation number, the day closed
 * when asked (totals, close, one settlement), and the records for the
 * server (commit, void commit, settlement) kept in the bridge's journal
 * until the server holds them. Every sale, refund and close is journaled
 * before it goes on the line; after a kill or a fault its outcome is
 * established from the POS (the last sale, the refund again, the totals)
 * before anything else goes on the line, never sent again on a guess.
 */
export function transbankDialect(options: { journal: SaleJournal; saleTimeoutMs?: number }): DialectDefinition {
  return {
    name: 'transbank',
    deviceName: 'POS',
    words: { charge: 'sale', void: 'refund' },
    recordsKeptOn: 'journal',
    answerTimeoutMs: TRANSBANK_DEFAULTS.answerTimeoutMs,
    create: (context) =>
      new TransbankPosDevice(context, options.journal, options.saleTimeoutMs ?? TRANSBANK_DEFAULTS.saleTimeoutMs),
  };
}

const codec: DeviceCodec<Request, Response> = {
  encode: encodeRequest,
  decode: decodeResponse,
  isProgress: (message) => message.code === '0900',
};

class TransbankPosDevice implements DialectDevice {
  private readonly session: DeviceSession<Request, Response>;
  readonly connect: (stream: Duplex) => DialectLine;

  constructor(
    private readonly context: DialectContext,
    private readonly journal: SaleJournal,
    private readonly saleTimeoutMs: number,
  ) {
    ({ session: this.session, connect: this.connect } = framedSession(codec, context, 'POS'));
  }

  async establish(): Promise<void> {
    await this.session.send({ code: '0100', fields: {} }); // a poll: the POS answers with its ACK
    const { inFlight } = this.journal;
    if (inFlight) await this.resolveUnanswered(inFlight);
  }

  async lastOutcome(kind: AskKind, order: OrderToAsk): Promise<KnownAsk> {
    const { journal } = this;
    const { state, log } = this.context;
    if (kind === 'void') {
      if (journal.sale(order.orderId)?.refunded) return 'asked'; // refunded; its void commit is on its way
      return journal.declined(`refund:${order.orderId}`) ? 'declined' : 'ask';
    }
    if (journal.sale(order.orderId)) return 'asked'; // approved; its commit is on its way
    // A declined sale goes to the POS again only when a cashier asked (svc-terminal retry ORDER).
    if (!journal.declined(`sale:${order.orderId}`)) return 'ask';
    if (!(await state.retryRequested(order.orderId))) return 'declined';
    await journal.clearDeclined(`sale:${order.orderId}`);
    await state.retryTaken(order.orderId);
    log(`sale ${order.orderId}: retried by the cashier`);
    return 'ask';
  }

  async charge(order: OrderToAsk): Promise<AskOutcome> {
    const { log, hold, iso } = this.context;
    const carried = saleAmount(order);
    if ('reason' in carried) {
      await hold(
        'charge',
        order.orderId,
        `the order cannot be sold on a POS Integrado: ${carried.reason}. It is not truncated or converted`,
      );
      return { asked: false };
    }
    const ticket = await this.journal.ticketFor(order.orderId);
    const asked: Sale = { kind: 'sale', orderId: order.orderId, ticket, amount: carried.amount, startedAt: iso() };
    // Durable before it goes on the line: a bridge restarted after this asks the POS for its last sale first.
    await this.journal.begin(asked);
    log(`sale ${order.orderId}: ${carried.amount} CLP as ticket ${ticket}, on the POS`);
    const answer = await this.session.request(
      { code: '0200', fields: { amount: carried.amount, ticket, sendStatus: true } },
      ['0210'],
      this.saleTimeoutMs,
      (progress) => log(`sale ${order.orderId}: ${describeResponseCode(String(progress.fields.responseCode), '0200')}`),
    );
    const outcome = saleAnswer(asked, answer.fields);
    await this.recordSaleOutcome(asked, outcome);
    return outcome.kind === 'approved' ? { asked: true, recorded: true } : { asked: false };
  }

  async void(order: OrderToAsk): Promise<AskOutcome> {
    const { hold, iso } = this.context;
    const sale = this.journal.sale(order.orderId);
    if (!sale) {
      await hold(
        'void',
        order.orderId,
        'the bridge has no sale of this order in the open batch (sold before the last close, or by another cash register), and a POS refunds only by the operation number of a sale in its open batch',
      );
      return { asked: false };
    }
    const asked: Refund = {
      kind: 'refund',
      orderId: order.orderId,
      operationNumber: sale.operationNumber,
      startedAt: iso(),
    };
    await this.journal.begin(asked);
    return (await this.sendRefund(asked)) ? { asked: true, recorded: true } : { asked: false };
  }

  async discarded(kind: AskKind, orderId: string): Promise<void> {
    await this.journal.decline(`${kind === 'charge' ? 'sale' : 'refund'}:${orderId}`, {
      responseCode: 'discarded',
      at: this.context.iso(),
    });
  }

  async close(close: PendingClose): Promise<void> {
    const { journal } = this;
    const { state, error, iso } = this.context;
    if (journal.inFlight) return;
    if (journal.snapshot.lastCloseId === close.closeId) return void (await state.closeDone(close, iso()));
    const totals = await this.totals();
    const asked: Close = {
      kind: 'close',
      closeId: close.closeId,
      batchNumber: journal.nextBatchNumber,
      ...totals,
      startedAt: iso(),
    };
    await journal.begin(asked);
    const answer = await this.request({ code: '0500', fields: {} }, ['0510']);
    if (answer.fields.responseCode === '00') return this.finishClose(asked);
    await journal.nothingInFlight();
    await state.closeDone(close, iso());
    error(
      `the POS refused to close the day: ${describeResponseCode(String(answer.fields.responseCode), '0500')}; type close (or wait for --close-at) to try again`,
    );
  }

  async nextRecord(): Promise<MoneyRecord | null> {
    return this.journal.snapshot.outbox[0] ?? null;
  }

  async recordDelivered(record: MoneyRecord): Promise<void> {
    await this.journal.delivered(record.seq);
  }

  /** The outcome of the request a kill or a line fault cut off, from the POS's own word; never sent again on a guess. */
  private async resolveUnanswered(inFlight: SaleInFlight): Promise<void> {
    const { log } = this.context;
    if (inFlight.kind === 'refund') {
      log(
        `the refund of ${inFlight.orderId} (operation ${inFlight.operationNumber}) has no answer yet: sending it again (a POS refunds an operation once)`,
      );
      await this.sendRefund(inFlight);
      return;
    }
    if (inFlight.kind === 'close') {
      const totals = await this.totals();
      if (closeHappened(totals)) {
        log(`the close of batch ${inFlight.batchNumber} had no answer; the POS's batch is empty now, so it closed`);
        return this.finishClose(inFlight);
      }
      log(
        `the close of batch ${inFlight.batchNumber} had no answer; the POS still has ${totals.transactionCount} sale(s) open, so it did not close: closing again`,
      );
      return this.journal.nothingInFlight();
    }
    const last = await this.request({ code: '0250', fields: {} }, ['0260']);
    const verdict = lastSaleVerdict(inFlight, last.fields);
    if (verdict.kind === 'not-made') {
      log(
        `the sale of ${inFlight.orderId} (ticket ${inFlight.ticket}) had no answer and was not made: ${verdict.why}; the order stays PENDING and is sold again`,
      );
      return this.journal.nothingInFlight();
    }
    log(
      `the sale of ${inFlight.orderId} (ticket ${inFlight.ticket}) had no answer; the POS's last sale says what became of it`,
    );
    return this.recordSaleOutcome(inFlight, verdict);
  }

  private async recordSaleOutcome(asked: Sale, outcome: SaleVerdict): Promise<void> {
    const { journal } = this;
    const { state, log, error, hold, iso } = this.context;
    if (outcome.kind === 'approved') {
      await journal.saleApproved({
        orderId: asked.orderId,
        ticket: asked.ticket,
        amount: asked.amount,
        authorizationCode: outcome.authorizationCode,
        operationNumber: outcome.operationNumber,
        cardType: outcome.cardType,
        last4Digits: outcome.last4Digits,
        approvedAt: iso(),
      });
      log(
        `sale ${asked.orderId} approved: authorization ${outcome.authorizationCode}, operation ${outcome.operationNumber}, card ${outcome.cardType ?? '?'} ****${outcome.last4Digits ?? '????'}; committing it on the server`,
      );
      return;
    }
    if (outcome.kind === 'declined') {
      await journal.decline(`sale:${asked.orderId}`, { responseCode: outcome.responseCode, at: iso() });
      error(
        `sale ${asked.orderId} declined by the POS: ${describeResponseCode(outcome.responseCode, '0200')}. The order stays PENDING and is not sent again by itself; ` +
          `to try another card: svc-terminal retry ${asked.orderId} --state ${state.stateDir} --serial ${state.serial}`,
      );
      return;
    }
    await hold(
      'charge',
      asked.orderId,
      `the outcome of sale ticket ${asked.ticket} cannot be established: ${outcome.reason}`,
    );
    await journal.nothingInFlight();
  }

  private async sendRefund(asked: Refund): Promise<boolean> {
    const answer = await this.request({ code: '1200', fields: { operationNumber: asked.operationNumber } }, ['1210']);
    const verdict = refundAnswer(String(answer.fields.responseCode));
    if (verdict.kind === 'refunded') {
      await this.journal.refunded(asked.orderId, this.context.iso());
      this.context.log(
        `refund of ${asked.orderId} (operation ${asked.operationNumber}): ${verdict.note}; committing the void on the server`,
      );
      return true;
    }
    await this.context.hold('void', asked.orderId, verdict.reason);
    await this.journal.nothingInFlight();
    return false;
  }

  private async finishClose(asked: Close): Promise<void> {
    const { state, log, iso } = this.context;
    await this.journal.closed(asked, state.serial, iso());
    const pending = await state.pendingClose();
    if (pending?.closeId === asked.closeId) await state.closeDone(pending, iso());
    log(
      `day closed on the POS: batch ${asked.batchNumber}, ${asked.transactionCount} sale(s), ${asked.total} CLP; sending the settlement`,
    );
  }

  private async totals(): Promise<{ transactionCount: number; total: number }> {
    return totalsAnswer((await this.request({ code: '0700', fields: {} }, ['0710'])).fields);
  }

  private request(message: Request, expect: readonly ResponseCode[]): Promise<Response> {
    return this.session.request(message, expect, this.context.answerTimeoutMs);
  }
}
