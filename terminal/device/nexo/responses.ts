import { toMajorUnits, type Currency } from '../../protocol/currencies.js';
import {
  additionalResponse,
  responseHeader,
  type Body,
  type ErrorCondition,
  type MessageHeader,
  type NexoMessage,
  type Result,
} from '../../protocol/nexo/messages.js';
import type { Refusal } from '../../protocol/nexo/outcomes.js';
import type { NexoTerminalState, TotalsType } from './nexo-state.js';

// The bodies an emulated nexo terminal answers with, shaped as a V400m test
// terminal's (Adyen's captured payloads): pure functions of what was decided.

export function answer(request: MessageHeader, body: Body): NexoMessage {
  return { header: responseHeader(request), body };
}

export function responseField(
  result: Result,
  condition?: ErrorCondition,
  additional?: Record<string, string | number | boolean>,
): Body {
  return {
    Result: result,
    ...(condition ? { ErrorCondition: condition } : {}),
    ...(additional ? { AdditionalResponse: additionalResponse(additional) } : {}),
  };
}

/** A failure of any category: the body holds only its Response. */
export function failure(request: MessageHeader, condition: ErrorCondition, message: string): NexoMessage {
  return answer(request, { Response: responseField('Failure', condition, { message }) });
}

/** The card a test terminal reads: a Mastercard test card, tapped. */
export interface CardRead {
  maskedPan: string;
  brand: string;
  entryMode: string;
  approvalCode: string;
}

export interface PaymentDecision {
  request: MessageHeader;
  saleTransaction: Body | undefined;
  currency: Currency;
  /** Minor units. */
  amount: number;
  refund: boolean;
  transactionId: string;
  pspReference: string;
  reconciliationId: number;
  at: string;
  poiid: string;
  card: CardRead;
  refusal?: Refusal;
  aborted?: string;
}

export function paymentResponse(decision: PaymentDecision): NexoMessage {
  const { currency, card, refusal } = decision;
  const major = toMajorUnits(decision.amount, currency);
  const failed = decision.aborted !== undefined || refusal !== undefined;
  const additional: Record<string, string | number | boolean> = {
    pspReference: decision.pspReference,
    paymentMethod: card.brand,
    posEntryMode: card.entryMode,
    posAmountCashbackValue: 0,
    posOriginalAmountValue: decision.amount,
    posOriginalAmountCurrency: currency.alpha,
    transactionType: decision.refund ? 'REFUND' : 'GOODS_SERVICES',
    iso8601TxDate: decision.at,
    ...(refusal
      ? { refusalReason: refusal.refusalReason, ...(refusal.message ? { message: refusal.message } : {}) }
      : {}),
    ...(decision.aborted ? { message: decision.aborted } : {}),
    ...(failed ? {} : { authCode: card.approvalCode, authorisedAmountValue: decision.amount }),
  };
  const condition: ErrorCondition | undefined = decision.aborted ? 'Aborted' : refusal?.condition;
  return answer(decision.request, {
    Response: responseField(failed ? 'Failure' : 'Success', condition, additional),
    ...(decision.saleTransaction ? { SaleData: { SaleTransactionID: decision.saleTransaction } } : {}),
    POIData: {
      POITransactionID: { TransactionID: decision.transactionId, TimeStamp: decision.at },
      POIReconciliationID: String(decision.reconciliationId),
    },
    PaymentResult: {
      PaymentType: decision.refund ? 'Refund' : 'Normal',
      PaymentInstrumentData: {
        PaymentInstrumentType: 'Card',
        CardData: { EntryMode: [card.entryMode], MaskedPan: card.maskedPan, PaymentBrand: card.brand },
      },
      AmountsResp: { AuthorizedAmount: failed ? 0 : major, Currency: currency.alpha },
      OnlineFlag: true,
      PaymentAcquirerData: {
        AcquirerPOIID: decision.poiid,
        MerchantID: 'SvcPosSimTestMerchant',
        AcquirerTransactionID: { TransactionID: decision.pspReference, TimeStamp: decision.at },
        ...(failed ? {} : { ApprovalCode: card.approvalCode }),
      },
    },
    ...(failed ? {} : { PaymentReceipt: receipts(decision, major) }),
  });
}

/** The cashier's and the customer's receipts, as Adyen's terminals send them: URL-encoded name/value lines. */
function receipts(decision: PaymentDecision, major: number): Body[] {
  const line = (fields: Record<string, string>, bold = false) => ({
    ...(bold ? { CharacterStyle: 'Bold' } : {}),
    EndOfLineFlag: true,
    Text: new URLSearchParams(fields).toString(),
  });
  const lines = [
    line({ key: 'header1' }, true),
    line({ name: 'Date', value: decision.at.slice(0, 10), key: 'txdate' }),
    line({ name: 'Time', value: decision.at.slice(11, 19), key: 'txtime' }),
    line({ name: 'Card', value: decision.card.maskedPan, key: 'pan' }),
    line({ name: 'Auth. code', value: decision.card.approvalCode, key: 'authCode' }),
    line({ name: 'Tender', value: decision.transactionId.split('.')[0]!, key: 'txRef' }),
    line(
      {
        name: 'TOTAL',
        value: `${decision.currency.alpha} ${major.toFixed(decision.currency.exponent)}`,
        key: 'totalAmount',
      },
      true,
    ),
    line({ name: 'APPROVED', key: 'approved' }, true),
  ];
  return ['CashierReceipt', 'CustomerReceipt'].map((qualifier) => ({
    DocumentQualifier: qualifier,
    RequiredSignatureFlag: false,
    OutputContent: { OutputFormat: 'Text', OutputText: lines },
  }));
}

export function reconciliationTotals(
  state: NexoTerminalState,
  currencies: (alpha: string) => Currency | undefined,
): Body[] {
  return Object.entries(state.totals).map(([alpha, byType]) => {
    const currency = currencies(alpha);
    return {
      PaymentInstrumentType: 'Card',
      PaymentCurrency: alpha,
      PaymentTotals: (Object.entries(byType) as Array<[TotalsType, { count: number; amount: number }]>).map(
        ([type, totals]) => ({
          TransactionType: type,
          TransactionCount: totals.count,
          TransactionAmount: currency ? toMajorUnits(totals.amount, currency) : totals.amount,
        }),
      ),
    };
  });
}
