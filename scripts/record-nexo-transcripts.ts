// Records the nexo transcripts of fixtures/nexo/transcripts/ from our emulated Adyen
// terminal, started as each file's `device` says, so that
// `svc-terminal play --emulated` (and play --host against
// `svc-terminal emulate --dialect nexo` started the same way) gets the same
// response bodies back:
//   node --import tsx scripts/record-nexo-transcripts.ts
import { writeFileSync } from 'node:fs';
import {
  emulatedNexo,
  type NexoExchange,
  type NexoTranscript,
  type NexoTranscriptDevice,
} from '../terminal/transcript/nexo-transcript.js';

const device: NexoTranscriptDevice = {
  dialect: 'nexo',
  poiid: 'V400m-324688179',
  seed: 11,
  clock: '2026-11-21T13:45:00.000Z',
};
const AT = '2026-11-21T13:44:58.000Z';

let service = 0;
const request = (category: string, body: Record<string, unknown>, header: Record<string, string> = {}) => ({
  SaleToPOIRequest: {
    MessageHeader: {
      ProtocolVersion: '3.0',
      MessageClass: 'Service',
      MessageCategory: category,
      MessageType: 'Request',
      SaleID: 'ECR-1',
      ServiceID: `T${String(++service).padStart(4, '0')}`,
      POIID: device.poiid,
      ...header,
    },
    [`${category}Request`]: body,
  },
});
const payment = (order: string, amount: number, currency = 'EUR', extra: Record<string, unknown> = {}) =>
  request('Payment', {
    SaleData: { SaleTransactionID: { TransactionID: order, TimeStamp: AT } },
    PaymentTransaction: { AmountsReq: { Currency: currency, RequestedAmount: amount } },
    ...extra,
  });
const status = (serviceId: string | undefined) =>
  request(
    'TransactionStatus',
    serviceId ? { MessageReference: { MessageCategory: 'Payment', SaleID: 'ECR-1', ServiceID: serviceId } } : {},
  );

type Step = {
  name: string;
  request: ReturnType<typeof request> | ((answers: unknown[]) => ReturnType<typeof request>);
};
const transactionOf = (answers: unknown[], index: number) =>
  (answers[index] as { SaleToPOIResponse: { PaymentResponse: { POIData: { POITransactionID: unknown } } } })
    .SaleToPOIResponse.PaymentResponse.POIData.POITransactionID;
const reversal = (index: number, amount?: number) => (answers: unknown[]) =>
  request('Reversal', {
    OriginalPOITransaction: { POITransactionID: transactionOf(answers, index) },
    ReversalReason: 'MerchantCancel',
    ...(amount !== undefined ? { ReversedAmount: amount } : {}),
  });

const transcripts: Array<{ name: string; description: string; steps: () => Step[] }> = [
  {
    name: 'diagnosis-payment-status',
    description:
      'A diagnosis (GlobalStatus OK, host reachable); a payment of 25.00 EUR approved (TransactionID <tender>.<PSP reference>, POIReconciliationID 1000, masked card, receipts); TransactionStatus of it twice (the same response repeated, without receipts); TransactionStatus of a ServiceID never sent (NotFound).',
    steps: () => [
      { name: 'diagnosis', request: request('Diagnosis', { HostDiagnosisFlag: true }) },
      { name: 'payment 25.00 EUR', request: payment('order-1', 25) },
      { name: 'status of the payment', request: status('T0002') },
      { name: 'status again, the same', request: status('T0002') },
      { name: 'status of a ServiceID never sent', request: status('NEVER') },
    ],
  },
  {
    name: 'refusals-by-amount',
    description:
      "Payments refused as on Adyen's test terminals, by the amount's last three digits: 11.24 Refusal (210 Not enough balance), 11.25 (199 Card blocked), 11.26 (228 Card expired), 11.27 (214 Declined online), 11.28 InvalidCard, 11.34 WrongPIN (129 Invalid online PIN); then 11.29 approved.",
    steps: () =>
      [11.24, 11.25, 11.26, 11.27, 11.28, 11.34, 11.29].map((amount) => ({
        name: `payment ${amount.toFixed(2)} EUR`,
        request: payment(`order-${amount}`, amount),
      })),
  },
  {
    name: 'reversal-refund-reconciliation',
    description:
      'A payment of 50.00 EUR; a partial reversal of 10.00; a reversal of 40.01 refused (NotAllowed: beyond what is left); the rest reversed; an unreferenced refund of 5.00; a reconciliation (Debit 1 × 50.00, Credit 1 × 5.00, ReverseDebit 2 × 50.00; POIReconciliationID 1000); another (no totals, 1001).',
    steps: () => [
      { name: 'payment 50.00 EUR', request: payment('order-50', 50) },
      { name: 'reversal of 10.00', request: reversal(0, 10) },
      { name: 'reversal of 40.01, refused', request: reversal(0, 40.01) },
      { name: 'reversal of the rest', request: reversal(0) },
      { name: 'refund 5.00 EUR', request: payment('refund-5', 5, 'EUR', { PaymentData: { PaymentType: 'Refund' } }) },
      { name: 'reconciliation', request: request('Reconciliation', { ReconciliationType: 'SaleReconciliation' }) },
      {
        name: 'reconciliation, empty',
        request: request('Reconciliation', { ReconciliationType: 'SaleReconciliation' }),
      },
    ],
  },
  {
    name: 'message-format',
    description:
      "What breaks the rules: a ServiceID of 11 characters, an unknown category, another terminal's POIID, an unknown currency (all MessageFormat), a ServiceID used again by the same SaleID (NotAllowed, not run twice), an Abort with nothing running (an empty answer).",
    steps: () => [
      { name: 'ServiceID too long', request: payment('order-x', 1, 'EUR') },
      { name: 'unknown category', request: request('CardAcquisition', {}) },
      { name: "another terminal's POIID", request: request('Diagnosis', {}, { POIID: 'P400Plus-275039202' }) },
      { name: 'unknown currency', request: payment('order-y', 1, 'XYZ') },
      { name: 'payment 3.00 EUR', request: payment('order-z', 3) },
      { name: 'the same ServiceID again', request: { ...payment('order-z', 3) } },
      {
        name: 'abort with nothing running',
        request: request('Abort', {
          AbortReason: 'MerchantAbort',
          MessageReference: { MessageCategory: 'Payment', SaleID: 'ECR-1', ServiceID: 'T9999' },
        }),
      },
    ],
  },
];

for (const { name, description, steps } of transcripts) {
  service = 0;
  const send = emulatedNexo(device);
  const exchanges: NexoExchange[] = [];
  const answers: unknown[] = [];
  const made = steps();
  for (const step of made) {
    const body = typeof step.request === 'function' ? step.request(answers) : step.request;
    if (name === 'message-format' && step.name === 'ServiceID too long')
      body.SaleToPOIRequest.MessageHeader.ServiceID = 'ELEVENCHARS';
    if (step.name === 'the same ServiceID again') body.SaleToPOIRequest.MessageHeader.ServiceID = 'T0005';
    const text = await send(JSON.stringify(body));
    const response: unknown = text === '' ? null : JSON.parse(text);
    answers.push(response);
    exchanges.push({ name: step.name, request: body, response });
  }
  const transcript: NexoTranscript = { protocol: 'nexo', description, device, exchanges };
  writeFileSync(
    new URL(`../fixtures/nexo/transcripts/${name}.json`, import.meta.url),
    `${JSON.stringify(transcript, null, 2)}\n`,
  );
  console.log(`fixtures/nexo/transcripts/${name}.json: ${exchanges.length} exchanges`);
}
