import { PassThrough, type Duplex } from 'node:stream';
import { currencyOf, toMajorUnits } from '../../protocol/currencies.js';
import type { Body, MessageHeader, NexoMessage } from '../../protocol/nexo/messages.js';
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
import { BridgeError, LineError } from '../../errors.js';
import type { NexoClient } from './nexo-client.js';
import { passingServiceId, type NexoInFlight, type NexoJournal } from './nexo-journal.js';
import { paymentEnded, reconciliationEnded, result, reversalEnded } from './nexo-outcomes.js';

// An Adyen terminal's Terminal API (nexo over HTTPS), the bridge its cash
// register (docs/terminal/nexo.md): each PENDING
// order is a Payment (SaleTransactionID the order, the amount in the
// currency's major units), a VOID_PENDING one a Reversal of its payment, a
// close a Reconciliation and one settlement. Each request is journaled
// with its ServiceID before it is sent; after a timeout, a kill or a cut
// line the terminal is asked about that ServiceID (TransactionStatus)
// before anything else: Success settles it as the terminal says, NotFound
// means it never ran (asked again under a new ServiceID), InProgress means
// wait. A ServiceID is never reused.

export const NEXO_DEFAULTS = {
  /** A payment waits for the customer: Adyen's local integrations wait 120 s before asking the status. */
  answerTimeoutMs: 130_000,
  /** A diagnosis or a status answers at once. */
  quickTimeoutMs: 10_000,
};

export interface NexoDialectOptions {
  journal: NexoJournal;
  client: NexoClient;
  poiid: string;
  /** SaleID: the cash register's name (the bridge's serial). */
  saleId: string;
}

export function nexoDialect(options: NexoDialectOptions): DialectDefinition {
  return {
    name: 'nexo',
    deviceName: 'terminal',
    words: { charge: 'payment', void: 'reversal' },
    recordsKeptOn: 'journal',
    answerTimeoutMs: NEXO_DEFAULTS.answerTimeoutMs,
    create: (context) => new NexoTerminalDevice(context, options),
  };
}

/** The HTTPS endpoint as the bridge's line: it is down when a request finds no terminal, and reopened with backoff. */
class EndpointLine implements DialectLine {
  isClosed = false;
  close(): void {
    this.isClosed = true;
  }
}

/** The endpoint's stand-in for the bridge's line: each request makes its own TLS connection. */
export const endpointStream = async (): Promise<Duplex> => new PassThrough();

class NexoTerminalDevice implements DialectDevice {
  private line: EndpointLine | null = null;

  constructor(
    private readonly context: DialectContext,
    private readonly options: NexoDialectOptions,
  ) {}

  private get journal(): NexoJournal {
    return this.options.journal;
  }

  connect(): DialectLine {
    this.line = new EndpointLine();
    return this.line;
  }

  async establish(): Promise<void> {
    const diagnosis = await this.send(
      'Diagnosis',
      await this.journal.nextServiceId(),
      { HostDiagnosisFlag: false },
      true,
    );
    const status = result(diagnosis?.body).Result;
    if (status !== 'Success') this.context.debug?.(`diagnosis: ${String(status)}`);
    const inFlight = this.journal.inFlight;
    if (inFlight) await this.resolveUnanswered(inFlight);
  }

  async lastOutcome(kind: AskKind, order: OrderToAsk): Promise<KnownAsk> {
    // A request whose outcome the terminal has not told yet (InProgress): nothing else goes until it has.
    if (this.journal.inFlight) return 'asked';
    if (kind === 'void') {
      if (this.journal.payment(order.orderId)?.voided) return 'asked';
      return this.journal.declined(`void:${order.orderId}`) ? 'declined' : 'ask';
    }
    if (this.journal.payment(order.orderId)) return 'asked';
    if (!this.journal.declined(`payment:${order.orderId}`)) return 'ask';
    if (!(await this.context.state.retryRequested(order.orderId))) return 'declined';
    await this.journal.clearDeclined(`payment:${order.orderId}`);
    await this.context.state.retryTaken(order.orderId);
    this.context.log(`payment ${order.orderId}: retried by the cashier`);
    return 'ask';
  }

  async charge(order: OrderToAsk): Promise<AskOutcome> {
    const currency = currencyOf(order.currency);
    if (!currency || !Number.isSafeInteger(order.amount) || order.amount <= 0) {
      await this.context.hold(
        'charge',
        order.orderId,
        currency
          ? `the amount ${order.amount} is not a positive whole number of minor units`
          : `the order's currency ${order.currency} is not one this bridge knows; it is not converted`,
      );
      return { asked: false };
    }
    const asked: NexoInFlight = {
      kind: 'payment',
      serviceId: await this.journal.nextServiceId(),
      orderId: order.orderId,
      amount: order.amount,
      currency: currency.alpha,
      startedAt: this.context.iso(),
    };
    await this.journal.begin(asked);
    this.context.log(
      `payment ${order.orderId}: ${toMajorUnits(order.amount, currency)} ${currency.alpha} on the terminal (ServiceID ${asked.serviceId})`,
    );
    const response = await this.send('Payment', asked.serviceId, {
      SaleData: { SaleTransactionID: { TransactionID: order.orderId, TimeStamp: asked.startedAt } },
      PaymentTransaction: {
        AmountsReq: { Currency: currency.alpha, RequestedAmount: toMajorUnits(order.amount, currency) },
      },
    });
    return paymentEnded(this.context, this.journal, asked, response?.body);
  }

  async void(order: OrderToAsk): Promise<AskOutcome> {
    const payment = this.journal.payment(order.orderId);
    if (!payment) {
      await this.context.hold(
        'void',
        order.orderId,
        'the bridge has no payment of this order on the terminal (made by another cash register, or before its journal), so it cannot name the transaction to reverse',
      );
      return { asked: false };
    }
    const asked: NexoInFlight = {
      kind: 'reversal',
      serviceId: await this.journal.nextServiceId(),
      orderId: order.orderId,
      transactionId: payment.transactionId,
      startedAt: this.context.iso(),
    };
    await this.journal.begin(asked);
    this.context.log(`reversal of ${order.orderId}: ${payment.transactionId} (ServiceID ${asked.serviceId})`);
    const response = await this.send('Reversal', asked.serviceId, {
      OriginalPOITransaction: {
        POIID: this.options.poiid,
        SaleID: this.options.saleId,
        POITransactionID: { TransactionID: payment.transactionId, TimeStamp: payment.transactionTime },
      },
      ReversalReason: 'MerchantCancel',
    });
    return reversalEnded(this.context, this.journal, asked, response?.body);
  }

  async discarded(kind: AskKind, orderId: string): Promise<void> {
    await this.journal.decline(`${kind === 'charge' ? 'payment' : 'void'}:${orderId}`, {
      condition: 'discarded',
      at: this.context.iso(),
    });
  }

  async close(close: PendingClose): Promise<void> {
    const { state, iso } = this.context;
    if (this.journal.inFlight) return;
    if (this.journal.snapshot.lastCloseId === close.closeId) return void (await state.closeDone(close, iso()));
    const asked: NexoInFlight = {
      kind: 'reconciliation',
      serviceId: await this.journal.nextServiceId(),
      closeId: close.closeId,
      batchNumber: this.journal.nextBatchNumber,
      startedAt: iso(),
    };
    await this.journal.begin(asked);
    const response = await this.send('Reconciliation', asked.serviceId, { ReconciliationType: 'SaleReconciliation' });
    await reconciliationEnded(this.context, this.journal, asked, response?.body);
  }

  async nextRecord(): Promise<MoneyRecord | null> {
    return this.journal.snapshot.outbox[0] ?? null;
  }

  async recordDelivered(record: MoneyRecord): Promise<void> {
    await this.journal.delivered(record.seq);
  }

  /** A request whose answer a kill, a timeout or a cut line took: the terminal's own word on its ServiceID. */
  private async resolveUnanswered(inFlight: NexoInFlight): Promise<void> {
    const category = { payment: 'Payment', reversal: 'Reversal', reconciliation: 'Reconciliation' }[inFlight.kind];
    const status = await this.send(
      'TransactionStatus',
      passingServiceId(),
      { MessageReference: { MessageCategory: category, SaleID: this.options.saleId, ServiceID: inFlight.serviceId } },
      true,
    );
    const answer = result(status?.body);
    if (answer.Result !== 'Success') {
      if (answer.ErrorCondition === 'InProgress')
        return this.context.log(
          `${inFlight.kind} ${inFlight.serviceId}: still running on the terminal; waiting for it`,
        );
      if (answer.ErrorCondition === 'NotFound') {
        this.context.log(
          `${inFlight.kind} ${inFlight.serviceId}: the terminal never got it; asked again under a new ServiceID`,
        );
        return this.journal.nothingInFlight();
      }
      // Neither done, running nor unknown to it: asking again could charge twice, not asking could lose a
      // sale. An operator decides (svc-terminal held), as for every dialect whose device cannot say.
      const why = `the terminal cannot say what became of ${inFlight.kind} ${inFlight.serviceId} (TransactionStatus: ${String(answer.Result)}/${String(answer.ErrorCondition)})`;
      // A reconciliation stays in flight, asked again each cycle: closing again could leave its totals out of any settlement.
      if (inFlight.kind === 'reconciliation') throw new BridgeError('DEVICE_OUT_OF_STEP', why, { dialect: 'nexo' });
      await this.journal.nothingInFlight();
      return this.context.hold(inFlight.kind === 'payment' ? 'charge' : 'void', inFlight.orderId, why);
    }
    const repeated = (status!.body.RepeatedMessageResponse as Body | undefined)?.RepeatedResponseMessageBody as
      Body | undefined;
    const body = repeated?.[`${category}Response`] as Body | undefined;
    this.context.log(`${inFlight.kind} ${inFlight.serviceId}: its outcome, from the terminal's status`);
    if (inFlight.kind === 'payment') await paymentEnded(this.context, this.journal, inFlight, body);
    else if (inFlight.kind === 'reversal') await reversalEnded(this.context, this.journal, inFlight, body);
    else await reconciliationEnded(this.context, this.journal, inFlight, body);
  }

  /** One request to the terminal; a fault of the line closes it (the bridge reopens it) and is thrown. */
  private async send(category: string, serviceId: string, body: Body, quick = false): Promise<NexoMessage | null> {
    const header: MessageHeader = {
      ProtocolVersion: '3.0',
      MessageClass: 'Service',
      MessageCategory: category,
      MessageType: 'Request',
      ServiceID: serviceId,
      SaleID: this.options.saleId,
      POIID: this.options.poiid,
    };
    const timeout = quick
      ? Math.min(NEXO_DEFAULTS.quickTimeoutMs, this.context.answerTimeoutMs)
      : this.context.answerTimeoutMs;
    try {
      this.context.debug?.(`→ ${category} ${serviceId}`);
      const response = await this.options.client.send({ header, body }, timeout);
      this.context.debug?.(`← ${category} ${serviceId}: ${String(result(response?.body).Result ?? 'empty')}`);
      return response;
    } catch (error) {
      if (error instanceof LineError) this.line?.close();
      throw error;
    }
  }
}
