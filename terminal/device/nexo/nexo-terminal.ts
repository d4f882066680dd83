import { currencyOf, toMinorUnits } from '../../protocol/currencies.js';
import { CATEGORIES, type Body, type MessageHeader, type NexoMessage } from '../../protocol/nexo/messages.js';
import { refusalFor } from '../../protocol/nexo/outcomes.js';
import { realTimers, type Timers } from '../../protocol/timers.js';
import { readJournalSync, writeJournalSync } from '../journal-file.js';
import {
  emptyTerminalState,
  serviceKey,
  withService,
  withTotal,
  withTransaction,
  type NexoTerminalState,
} from './nexo-state.js';
import { answer, failure, paymentResponse, responseField, type PaymentDecision } from './responses.js';
import { closePeriod } from './reconciliation.js';
import { endInterrupted, requestProblem } from './request-rules.js';
import { transactionStatus } from './transaction-status.js';

// An emulated Adyen terminal's nexo service (docs/terminal/nexo.md): it answers one plaintext request with one response,
// whatever carried it (the HTTPS listener decrypts and encrypts). One
// payment runs at a time: another payment, reversal or reconciliation is
// answered Busy at once, while diagnosis, status and abort are answered
// beside it. A payment runs to its end whether or not its cash register is
// still connected, and its response is stored under its ServiceID before it
// is sent, so a TransactionStatus repeats it, the same each time, across a
// restart with --state.

export const NEXO_CARD_DELAY_MS = 300;

export interface NexoTerminalOptions {
  poiid: string;
  cardDelayMs?: number;
  /** The terminal's memory on disk (--state): written before every answer. */
  statePath?: string;
  timers?: Timers;
  random?: () => number;
  clock?: () => Date;
  log?: (line: string) => void;
}

interface Running {
  key: string;
  header: MessageHeader;
  abort: (reason: string) => void;
}

export class NexoTerminal {
  private state: NexoTerminalState;
  private running: Running | null = null;
  /** What the transaction being ended did, said once its memory is written: a log line never tells of what a kill undid. */
  private told: string[] = [];
  private readonly timers: Timers;
  private readonly random: () => number;
  private readonly clock: () => Date;
  private readonly log: (line: string) => void;

  constructor(private readonly options: NexoTerminalOptions) {
    this.timers = options.timers ?? realTimers;
    this.random = options.random ?? Math.random;
    this.clock = options.clock ?? (() => new Date(this.timers.now()));
    this.log = options.log ?? (() => undefined);
    this.state = (options.statePath && readJournalSync<NexoTerminalState>(options.statePath)) || emptyTerminalState();
    this.state = endInterrupted(this.state, options.poiid);
  }

  get poiid(): string {
    return this.options.poiid;
  }

  /** What the terminal holds, for the operator's `status` and tests. */
  get snapshot(): Readonly<NexoTerminalState> {
    return this.state;
  }

  get busy(): boolean {
    return this.running !== null;
  }

  /** The response to one request; null for an Abort (answered with an empty body). */
  async handle(message: NexoMessage): Promise<NexoMessage | null> {
    const { header, body } = message;
    const broken = requestProblem(header, this.options.poiid);
    if (broken) return failure(header, 'MessageFormat', broken);
    const category = header.MessageCategory as (typeof CATEGORIES)[number];
    switch (category) {
      case 'Diagnosis':
        return answer(header, {
          Response: responseField('Success'),
          POIStatus: { GlobalStatus: 'OK', CommunicationOKFlag: true, PEDOKFlag: true, CardReaderOKFlag: true },
          HostStatus: [{ AcquirerID: 'SvcPosSimAcquirer', IsReachableFlag: true }],
        });
      case 'Abort':
        this.abort(body);
        return null;
      case 'TransactionStatus':
        return transactionStatus(this.state, header, body);
      case 'Payment':
      case 'Reversal':
      case 'Reconciliation':
        return this.exclusive(header, body);
    }
  }

  /** Payments, reversals and reconciliations: one at a time, each under a ServiceID never used before. */
  private async exclusive(header: MessageHeader, body: Body): Promise<NexoMessage> {
    const key = serviceKey(header.SaleID, header.ServiceID);
    if (this.state.services[key])
      return failure(header, 'NotAllowed', `ServiceID ${header.ServiceID} was already used by SaleID ${header.SaleID}`);
    if (this.running) return failure(header, 'Busy', 'the terminal is busy with another transaction');
    const at = this.clock().toISOString();
    this.save(withService(this.state, key, { category: header.MessageCategory, at }));
    let response: NexoMessage;
    if (header.MessageCategory === 'Payment') response = await this.payment(key, header, body, at);
    else if (header.MessageCategory === 'Reversal') response = this.reversal(header, body, at);
    else response = this.reconciliation(header, body);
    this.save(withService(this.state, key, { category: header.MessageCategory, at, response }));
    for (const line of this.told.splice(0)) this.log(line);
    return response;
  }

  private async payment(key: string, header: MessageHeader, body: Body, at: string): Promise<NexoMessage> {
    const amounts = (body.PaymentTransaction as Body | undefined)?.AmountsReq as Body | undefined;
    const currency = typeof amounts?.Currency === 'string' ? currencyOf(amounts.Currency) : undefined;
    const major = amounts?.RequestedAmount;
    const amount = typeof major === 'number' && currency ? toMinorUnits(major, currency) : undefined;
    if (!currency || amount === undefined || amount <= 0)
      return failure(
        header,
        'MessageFormat',
        'PaymentTransaction.AmountsReq needs a known Currency and a positive RequestedAmount in its units',
      );
    const refund = (body.PaymentData as Body | undefined)?.PaymentType === 'Refund';
    this.log(
      `${refund ? 'refund' : 'payment'} ${header.SaleID}/${header.ServiceID}: ${major} ${currency.alpha}, waiting for the card`,
    );
    const aborted = await this.waitForCard(key, header);
    const refusal = aborted || refund ? undefined : refusalFor(amount);
    const psp = this.digits(16);
    const decision: PaymentDecision = {
      request: header,
      saleTransaction: (body.SaleData as Body | undefined)?.SaleTransactionID as Body | undefined,
      currency,
      amount,
      refund,
      transactionId: `${this.tenderReference()}.${psp}`,
      pspReference: psp,
      reconciliationId: this.state.reconciliationId,
      at,
      poiid: this.options.poiid,
      card: { maskedPan: '541333 **** 0010', brand: 'mc', entryMode: 'Contactless', approvalCode: this.digits(6) },
      ...(refusal ? { refusal } : {}),
      ...(aborted ? { aborted } : {}),
    };
    let next: NexoTerminalState = { ...this.state, lastPayment: key };
    if (!aborted && !refusal) {
      next = withTransaction(next, {
        transactionId: decision.transactionId,
        kind: refund ? 'refund' : 'payment',
        currency: currency.alpha,
        amount,
        reversed: 0,
        at,
      });
      next = withTotal(next, currency.alpha, refund ? 'Credit' : 'Debit', amount);
    }
    this.state = next;
    const sale = String((decision.saleTransaction as Body | undefined)?.TransactionID ?? '');
    this.told.push(
      `${refund ? 'refund' : 'payment'} ${header.ServiceID}: ${aborted ? `aborted (${aborted})` : refusal ? `refused (${refusal.refusalReason})` : `approved, ${decision.transactionId}, ${amount} minor units, sale ${sale}`}`,
    );
    return paymentResponse(decision);
  }

  /** The card comes after --card-delay, unless the payment is aborted first: then why. */
  private waitForCard(key: string, header: MessageHeader): Promise<string | undefined> {
    return new Promise((resolve) => {
      const timer = this.timers.setTimeout(() => {
        this.running = null;
        resolve(undefined);
      }, this.options.cardDelayMs ?? NEXO_CARD_DELAY_MS);
      this.running = {
        key,
        header,
        abort: (reason) => {
          this.timers.clearTimeout(timer);
          this.running = null;
          resolve(reason);
        },
      };
    });
  }

  private reversal(header: MessageHeader, body: Body, at: string): NexoMessage {
    const original = body.OriginalPOITransaction as Body | undefined;
    const wanted = (original?.POITransactionID as Body | undefined)?.TransactionID;
    const transaction =
      typeof wanted === 'string'
        ? (this.state.transactions[wanted] ??
          Object.values(this.state.transactions).find((candidate) => candidate.transactionId.endsWith(`.${wanted}`)))
        : undefined;
    if (!transaction || transaction.kind !== 'payment')
      return failure(header, 'NotFound', `no payment ${String(wanted)} on this terminal`);
    const currency = currencyOf(transaction.currency)!;
    const left = transaction.amount - transaction.reversed;
    const asked = typeof body.ReversedAmount === 'number' ? toMinorUnits(body.ReversedAmount, currency) : left;
    if (asked === undefined || asked <= 0 || asked > left)
      return failure(
        header,
        'NotAllowed',
        `the reversal would exceed what is left of the payment (${left} minor units)`,
      );
    const psp = this.digits(16);
    const transactionId = `${this.tenderReference()}.${psp}`;
    let next = withTransaction(this.state, { ...transaction, reversed: transaction.reversed + asked });
    next = withTotal(next, currency.alpha, 'ReverseDebit', asked);
    this.state = next;
    this.told.push(`reversal ${header.ServiceID}: ${asked} of ${transaction.transactionId}`);
    return answer(header, {
      Response: responseField('Success', undefined, {
        pspReference: psp,
        originalPspReference: transaction.transactionId.split('.')[1]!,
      }),
      POIData: {
        POITransactionID: { TransactionID: transactionId, TimeStamp: at },
        POIReconciliationID: String(this.state.reconciliationId),
      },
      ...(original ? { OriginalPOITransaction: original } : {}),
      ReversedAmount: asked / 10 ** currency.exponent,
    });
  }

  private reconciliation(header: MessageHeader, body: Body): NexoMessage {
    const closed = closePeriod(this.state, header, body);
    if (closed.state) this.state = closed.state;
    if (closed.told) this.told.push(closed.told);
    return closed.message;
  }

  private abort(body: Body): void {
    const reference = body.MessageReference as Body | undefined;
    const running = this.running;
    if (!running || !reference) return;
    const key = serviceKey(String(reference.SaleID ?? running.header.SaleID), String(reference.ServiceID));
    if (key === running.key) running.abort(String(body.AbortReason ?? 'aborted by the cash register'));
  }

  private save(next: NexoTerminalState): void {
    if (this.options.statePath) writeJournalSync(this.options.statePath, next);
    this.state = next;
  }

  private digits(count: number): string {
    let text = '';
    for (let i = 0; i < count; i += 1) text += String(Math.floor(this.random() * 10));
    return text.replace(/^0/, '1');
  }

  /** A tender reference as a terminal makes one: letters and digits, then a counter. */
  private tenderReference(): string {
    const counter = this.state.nextTransaction;
    this.state = { ...this.state, nextTransaction: counter + 1 };
    const letters = Array.from(
      { length: 4 },
      () => 'abcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(this.random() * 36)],
    ).join('');
    return `${letters}${String(counter).padStart(15, '0')}`;
  }
}
