import { randomBytes } from 'node:crypto';
import type { LinkError } from '../../protocol/link.js';
import { decodeResponse, encodeRequest, type RequestCode, type ResponseCode, type TransbankMessage } from '../../protocol/transbank/messages.js';
import { describeResponseCode } from '../../protocol/transbank/response-codes.js';
import { AnswerWaiter } from '../answer-waiter.js';
import { COMMON_DEFAULTS, courierOf, lineOptionsOf, type CommonBridgeOptions } from '../bridge-options.js';
import { askKey } from '../bridge-state.js';
import type { RecordCourier } from '../courier.js';
import { LineDriver } from '../line-driver.js';
import { closeHappened, lastSaleVerdict, refundAnswer, saleAmount, saleAnswer, type SaleOutcome } from './sale-rules.js';
import type { InFlight, SaleJournal } from './sale-journal.js';

export const TRANSBANK_DEFAULTS = {
  answerTimeoutMs: 5000,
  /** A sale waits for a customer at the terminal: card, PIN, the authoriser. */
  saleTimeoutMs: 150_000,
  ...COMMON_DEFAULTS,
};

export interface TransbankBridgeOptions extends CommonBridgeOptions {
  /** Tickets, the request in flight, the batch's sales, the records for the server. */
  journal: SaleJournal;
  saleTimeoutMs?: number;
}

export interface TransbankCycle {
  sold: number;
  refunded: number;
  delivered: number;
  blocked: boolean;
}

type Order = { orderId: string; amount: number; currency: string };

/**
 * The cash register of a Transbank POS Integrado (terminal/README.md). Each
 * cycle: a poll; the outcome of a request a kill or a fault left without
 * its answer, established from the POS (last sale, a refund sent again,
 * the totals) before anything else goes on the line; the server's PENDING
 * orders of the terminal sold one by one (a durable 6-character ticket
 * each), its VOID_PENDING ones refunded by the sale's operation number; the
 * day closed when asked (totals, close, one settlement); and the records
 * for the server (commit, void commit, settlement) delivered from the
 * journal, each kept until the server holds it.
 */
export class TransbankBridge extends LineDriver {
  private readonly error: (line: string) => void;
  private readonly courier: RecordCourier;
  private readonly answers: AnswerWaiter<TransbankMessage<ResponseCode>>;
  /** Where the running sale's status messages go. */
  private onStatus: ((code: string) => void) | null = null;

  constructor(private readonly options: TransbankBridgeOptions) {
    super(lineOptionsOf(options));
    this.error = options.error ?? this.log;
    this.courier = courierOf(options, { timers: this.timers, log: this.log, error: this.error, keptOn: 'journal' });
    this.answers = new AnswerWaiter(this.timers);
  }

  /** A close of the day, journaled before this resolves and carried out at the next cycle, once. */
  async requestClose(): Promise<void> {
    const now = this.timers.now();
    await this.options.state.requestClose({ closeId: `C${now.toString(36)}${randomBytes(3).toString('hex')}`, requestedAt: this.iso() });
  }

  protected runCycle(): Promise<TransbankCycle> {
    return this.cycle();
  }

  /** Opens the line (if needed) and runs one cycle; for tests and one-shot use. */
  async cycle(): Promise<TransbankCycle> {
    const link = await this.ensureConnected();
    await link.send(encodeRequest({ code: '0100', fields: {} })); // a poll: the POS answers with its ACK
    const { inFlight } = this.options.journal;
    if (inFlight) await this.establish(inFlight);
    const result: TransbankCycle = { sold: 0, refunded: 0, delivered: 0, blocked: false };
    if (this.courier.usable()) {
      result.sold = await this.courier.step('listing orders', () => this.sellPending(result), 0);
      result.refunded = await this.courier.step('listing orders', () => this.refundVoided(result), 0);
    }
    await this.closeIfAsked();
    await this.deliver(result);
    return result;
  }

  /** The outcome of the request a kill or a line fault cut off, from the POS's own word; never sent again on a guess. */
  private async establish(inFlight: InFlight): Promise<void> {
    if (inFlight.kind === 'refund') {
      this.log(`the refund of ${inFlight.orderId} (operation ${inFlight.operationNumber}) has no answer yet: sending it again (a POS refunds an operation once)`);
      await this.refund(inFlight);
      return;
    }
    if (inFlight.kind === 'close') {
      const totals = await this.totals();
      if (closeHappened(totals)) {
        this.log(`the close of batch ${inFlight.batchNumber} had no answer; the POS's batch is empty now, so it closed`);
        return this.finishClose(inFlight);
      }
      this.log(`the close of batch ${inFlight.batchNumber} had no answer; the POS still has ${totals.transactionCount} sale(s) open, so it did not close: closing again`);
      return this.options.journal.settled();
    }
    const last = await this.exchange({ code: '0250', fields: {} }, ['0260'], this.answerTimeout());
    const verdict = lastSaleVerdict(inFlight, last.fields);
    if (verdict.kind === 'not-made') {
      this.log(`the sale of ${inFlight.orderId} (ticket ${inFlight.ticket}) had no answer and was not made: ${verdict.why}; the order stays PENDING and is sold again`);
      return this.options.journal.settled();
    }
    this.log(`the sale of ${inFlight.orderId} (ticket ${inFlight.ticket}) had no answer; the POS's last sale says what became of it`);
    return this.settleSale(inFlight, verdict);
  }

  private async sellPending(result: TransbankCycle): Promise<number> {
    const orders = await this.courier.listOrders<Order>('PENDING');
    let sold = 0;
    for (const order of orders) {
      if (this.stopped) break;
      if (this.options.journal.sale(order.orderId)) continue; // approved; its commit is on its way
      if (!(await this.mayAsk('charge', order.orderId))) continue;
      if (!(await this.retryIfDeclined(order.orderId))) continue;
      const carried = saleAmount(order);
      if ('reason' in carried) {
        await this.hold('charge', order.orderId, `the order cannot be sold on a POS Integrado: ${carried.reason}. It is not truncated or converted`);
        continue;
      }
      const ticket = await this.options.journal.ticketFor(order.orderId);
      const asked: Extract<InFlight, { kind: 'sale' }> = { kind: 'sale', orderId: order.orderId, ticket, amount: carried.amount, startedAt: this.iso() };
      // Durable before it goes on the line: a bridge restarted after this asks the POS for its last sale first.
      await this.options.journal.begin(asked);
      this.log(`sale ${order.orderId}: ${carried.amount} CLP as ticket ${ticket}, on the POS`);
      const answer = await this.exchange({ code: '0200', fields: { amount: carried.amount, ticket, sendStatus: true } }, ['0210'], this.options.saleTimeoutMs ?? TRANSBANK_DEFAULTS.saleTimeoutMs, (code) =>
        this.log(`sale ${order.orderId}: ${describeResponseCode(code)}`),
      );
      const outcome = saleAnswer(asked, answer.fields);
      await this.settleSale(asked, outcome);
      if (outcome.kind === 'approved') {
        sold += 1;
        await this.deliver(result);
      }
    }
    return sold;
  }

  private async settleSale(asked: Extract<InFlight, { kind: 'sale' }>, outcome: SaleOutcome): Promise<void> {
    const { journal, state } = this.options;
    if (outcome.kind === 'approved') {
      await journal.saleApproved({ orderId: asked.orderId, ticket: asked.ticket, amount: asked.amount, authorizationCode: outcome.authorizationCode, operationNumber: outcome.operationNumber, cardType: outcome.cardType, last4Digits: outcome.last4Digits, approvedAt: this.iso() });
      this.log(`sale ${asked.orderId} approved: authorization ${outcome.authorizationCode}, operation ${outcome.operationNumber}, card ${outcome.cardType ?? '?'} ****${outcome.last4Digits ?? '????'}; committing it on the server`);
      return;
    }
    if (outcome.kind === 'declined') {
      await journal.decline(`sale:${asked.orderId}`, { responseCode: outcome.responseCode, at: this.iso() });
      this.error(
        `sale ${asked.orderId} declined by the POS: ${describeResponseCode(outcome.responseCode)}. The order stays PENDING and is not sent again by itself; ` +
          `to try another card: svc-terminal retry ${asked.orderId} --state-dir ${state.stateDir} --serial ${state.serial}`,
      );
      return;
    }
    await this.hold('charge', asked.orderId, `the outcome of sale ticket ${asked.ticket} cannot be established: ${outcome.reason}`);
    await journal.settled();
  }

  private async refundVoided(result: TransbankCycle): Promise<number> {
    const orders = await this.courier.listOrders<Order>('VOID_PENDING');
    let refunded = 0;
    for (const order of orders) {
      if (this.stopped) break;
      const sale = this.options.journal.sale(order.orderId);
      if (sale?.refunded) continue; // refunded; its void commit is on its way
      if (this.options.journal.declined(`refund:${order.orderId}`)) continue;
      if (!(await this.mayAsk('void', order.orderId))) continue;
      if (!sale) {
        await this.hold('void', order.orderId, 'the bridge has no sale of this order in the open batch (sold before the last close, or by another cash register), and a POS refunds only by the operation number of a sale in its open batch');
        continue;
      }
      const asked: Extract<InFlight, { kind: 'refund' }> = { kind: 'refund', orderId: order.orderId, operationNumber: sale.operationNumber, startedAt: this.iso() };
      await this.options.journal.begin(asked);
      if (await this.refund(asked)) {
        refunded += 1;
        await this.deliver(result);
      }
    }
    return refunded;
  }

  private async refund(asked: Extract<InFlight, { kind: 'refund' }>): Promise<boolean> {
    const answer = await this.exchange({ code: '1200', fields: { operationNumber: asked.operationNumber } }, ['1210'], this.answerTimeout());
    const verdict = refundAnswer(String(answer.fields.responseCode));
    if (verdict.kind === 'refunded') {
      await this.options.journal.refunded(asked.orderId, this.iso());
      this.log(`refund of ${asked.orderId} (operation ${asked.operationNumber}): ${verdict.note}; committing the void on the server`);
      return true;
    }
    await this.hold('void', asked.orderId, verdict.reason);
    await this.options.journal.settled();
    return false;
  }

  private async closeIfAsked(): Promise<void> {
    const { state, journal } = this.options;
    const close = await state.pendingClose();
    if (!close || journal.inFlight) return;
    if (journal.snapshot.lastCloseId === close.closeId) return void (await state.closeDone(close, this.iso()));
    const totals = await this.totals();
    const asked: Extract<InFlight, { kind: 'close' }> = { kind: 'close', closeId: close.closeId, batchNumber: journal.nextBatchNumber, ...totals, startedAt: this.iso() };
    await journal.begin(asked);
    const answer = await this.exchange({ code: '0500', fields: {} }, ['0510'], this.answerTimeout());
    if (answer.fields.responseCode === '00') return this.finishClose(asked);
    await journal.settled();
    await state.closeDone(close, this.iso());
    this.error(`the POS refused to close the day: ${describeResponseCode(String(answer.fields.responseCode))}; type close (or wait for --close-at) to try again`);
  }

  private async finishClose(asked: Extract<InFlight, { kind: 'close' }>): Promise<void> {
    const { state, journal } = this.options;
    await journal.closed(asked, state.serial, this.iso());
    const pending = await state.pendingClose();
    if (pending?.closeId === asked.closeId) await state.closeDone(pending, this.iso());
    this.log(`day closed on the POS: batch ${asked.batchNumber}, ${asked.transactionCount} sale(s), ${asked.total} CLP; sending the settlement`);
  }

  private async totals(): Promise<{ transactionCount: number; total: number }> {
    const answer = await this.exchange({ code: '0700', fields: {} }, ['0710'], this.answerTimeout());
    if (answer.fields.responseCode !== '00') throw new Error(`the POS could not give its totals: ${describeResponseCode(String(answer.fields.responseCode))}`);
    return { transactionCount: answer.fields.transactionCount as number, total: answer.fields.total as number };
  }

  /** The journal's records to the server, oldest first; each leaves the journal once the server holds it. */
  private async deliver(result: TransbankCycle): Promise<void> {
    for (const record of [...this.options.journal.snapshot.outbox]) {
      const outcome = await this.courier.handleRecord(record);
      if (outcome === 'wait') return;
      if (outcome === 'blocked') return void (result.blocked = true);
      await this.options.journal.delivered(record.seq);
      result.delivered += 1;
    }
  }

  /**
   * Whether an order may go to the POS: not while it is held for an
   * operator; after the operator's decision, as decided (a discarded one is
   * not sent again by itself).
   */
  private async mayAsk(kind: 'charge' | 'void', orderId: string): Promise<boolean> {
    const { state, journal } = this.options;
    const key = askKey(kind, orderId);
    const held = await state.heldAsk(key);
    if (!held) return true;
    const decision = await state.askDecision(key);
    if (!decision) return false;
    await state.releaseAsk(held, decision, decision.action === 'resend' ? 'sent to the POS again' : 'not sent again');
    this.log(`held ${kind === 'charge' ? 'sale' : 'refund'} of ${orderId}: ${decision.action === 'resend' ? 'sending it to the POS again' : `discarded (${decision.reason ?? 'no reason'}); the order stays open on the server`} by operator decision`);
    if (decision.action === 'discard') await journal.decline(`${kind === 'charge' ? 'sale' : 'refund'}:${orderId}`, { responseCode: 'discarded', at: this.iso() });
    return decision.action === 'resend';
  }

  /** A declined sale goes to the POS again only when a cashier asked (svc-terminal retry ORDER). */
  private async retryIfDeclined(orderId: string): Promise<boolean> {
    const { state, journal } = this.options;
    if (!journal.declined(`sale:${orderId}`)) return true;
    if (!(await state.retryRequested(orderId))) return false;
    await journal.clearDeclined(`sale:${orderId}`);
    await state.retryTaken(orderId);
    this.log(`sale ${orderId}: retried by the cashier`);
    return true;
  }

  private async hold(kind: 'charge' | 'void', orderId: string, reason: string): Promise<void> {
    const { state } = this.options;
    const key = askKey(kind, orderId);
    await state.holdAsk({ key, kind, orderId, reason, heldAt: this.iso() });
    this.error(`HELD ${kind === 'charge' ? 'sale' : 'refund'} of ${orderId}: ${reason}. Decide with: ${state.heldCommand()} resend ${key}  (or: discard ${key} --reason "…")`);
  }

  private answerTimeout(): number {
    return this.options.answerTimeoutMs ?? TRANSBANK_DEFAULTS.answerTimeoutMs;
  }

  private iso(): string {
    return new Date(this.timers.now()).toISOString();
  }

  /** Sends a request and waits for its answer, passing the sale's status messages (0900) on as they come. */
  private async exchange(request: TransbankMessage<RequestCode>, expect: ResponseCode[], timeoutMs: number, onStatus?: (code: string) => void): Promise<TransbankMessage<ResponseCode>> {
    const link = this.link;
    if (!link) throw new Error('no line');
    this.onStatus = onStatus ?? null;
    try {
      return await this.answers.request(() => link.send(encodeRequest(request)), expect.join('/'), (answer) => expect.includes(answer.code), timeoutMs, `no answer to ${request.code} within ${timeoutMs} ms`);
    } finally {
      this.onStatus = null;
    }
  }

  protected onPayload(payload: string): void {
    let message: TransbankMessage<ResponseCode>;
    try {
      message = decodeResponse(payload);
    } catch (error) {
      return this.log(`unreadable message from the POS: ${payload} (${(error as Error).message})`);
    }
    const awaited = this.answers.awaited;
    if (awaited !== null && message.code === '0900') return this.onStatus?.(String(message.fields.responseCode));
    if (!this.answers.offer(message)) this.log(`unexpected message from the POS: ${payload}${awaited !== null ? ` while waiting for ${awaited}` : ''}`);
  }

  protected onLineClosed(error: LinkError): void {
    this.answers.fail(error);
  }
}
