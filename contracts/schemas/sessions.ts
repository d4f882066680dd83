import { DECIMAL_PLACES_KEYWORD } from '../money-amount.js';
import { closed, isoTime, oursPattern, ref, withOursRequired, type Schema } from '../helpers.js';

// Schemas of the payment-session product (INTERFACE.md §5, §6).

// Two decimals are judged exactly on the number's decimal text (x-decimal-places,
// contracts/money-amount.ts), never by a floating multipleOf.
const money = {
  type: 'number',
  exclusiveMinimum: 0,
  maximum: 1_000_000_000,
  [DECIMAL_PLACES_KEYWORD]: 2,
  description:
    'Currency units with at most 2 decimals (x-decimal-places: judged on the number as written, e.g. 1234567.89, never by a floating multipleOf).',
} as Schema;
const amount = {
  type: 'number',
  minimum: 0,
  [DECIMAL_PLACES_KEYWORD]: 2,
  description: 'Currency units, at most 2 decimals.',
} as Schema;
const currency: Schema = { type: 'string', pattern: '^[A-Z]{3}$' };
// The id format is ours: ids are opaque strings in the interface (profiles.ts).
const id = (prefix: string): Schema => oursPattern(`^${prefix}_[0-9a-f]{18}$`);
const nullable = (schema: Schema): Schema => ({ oneOf: [schema, { type: 'null' }] });
export const paymentMethods = ['card', 'transfer', 'mobile_payment', 'wallet'] as const;

export const sessionSchemas: Record<string, Schema> = {
  AgreementCreateRequest: closed(['name', 'currency_reference', 'split', 'payment_methods'], {
    name: { type: 'string', minLength: 1, maxLength: 128 },
    currency_reference: currency,
    split: { type: 'boolean' },
    payment_methods: {
      type: 'array',
      items: { type: 'string', enum: [...paymentMethods] },
      minItems: 1,
      uniqueItems: true,
    },
  }),
  Agreement: withOursRequired(
    ['created_at'],
    closed(['agreement_id', 'name', 'currency_reference', 'split', 'payment_methods', 'created_at'], {
      agreement_id: id('agr'),
      name: { type: 'string' },
      currency_reference: currency,
      split: { type: 'boolean' },
      payment_methods: { type: 'array', items: { type: 'string', enum: [...paymentMethods] } },
      created_at: isoTime,
    }),
  ),
  PartnerCreateRequest: closed(['name', 'document_id'], {
    name: { type: 'string', minLength: 1, maxLength: 128 },
    document_id: { type: 'string', minLength: 1, maxLength: 64 },
  }),
  Partner: withOursRequired(
    ['created_at'],
    closed(['partner_id', 'name', 'document_id', 'created_at'], {
      partner_id: id('ptn'),
      name: { type: 'string' },
      document_id: { type: 'string' },
      created_at: isoTime,
    }),
  ),
  SplitAgreementCreateRequest: closed(['agreement_id', 'partner_id'], {
    agreement_id: { type: 'string', maxLength: 64 },
    partner_id: { type: 'string', maxLength: 64 },
  }),
  SplitAgreement: withOursRequired(
    ['created_at'],
    closed(['split_agreement_id', 'agreement_id', 'partner_id', 'created_at'], {
      split_agreement_id: id('spl'),
      agreement_id: id('agr'),
      partner_id: id('ptn'),
      created_at: isoTime,
    }),
  ),
  SessionCreateRequest: closed(['agreement_id', 'amount_reference'], {
    agreement_id: { type: 'string', maxLength: 64 },
    amount_reference: money,
    currency_reference: { ...currency, description: "Defaults to the agreement's; another currency answers 400." },
    due_date_session: {
      type: 'string',
      format: 'date-time',
      description: 'A past due date is accepted (the production sandbox answers 400).',
    },
    due_date_reached_behavior: { type: 'string', enum: ['expire', 'keep_active'], default: 'expire' },
    webhook_url: { type: 'string', minLength: 1, maxLength: 2048 },
    description: { type: 'string', maxLength: 256 },
    split: closed(['distribution'], {
      distribution: {
        type: 'array',
        minItems: 1,
        maxItems: 50,
        items: closed(['partner_id', 'amount_reference'], {
          partner_id: { type: 'string', maxLength: 64 },
          amount_reference: money,
        }),
      },
    }),
  }),
  ReceiverCredit: closed(['receiver_id', 'receiver_type', 'gross_amount', 'commission', 'net_amount', 'status'], {
    receiver_id: { type: 'string' },
    receiver_type: { type: 'string', enum: ['owner', 'partner'] },
    gross_amount: amount,
    commission: amount,
    net_amount: amount,
    status: { type: 'string', enum: ['credited', 'failed'] },
  }),
  ReceiverCreditsSummary: closed(['gross_amount', 'commissions', 'net_amount', 'total_credits'], {
    gross_amount: amount,
    commissions: amount,
    net_amount: amount,
    total_credits: { type: 'integer', minimum: 1, description: 'The split partners plus the owner.' },
  }),
  SessionPayment: closed(['id', 'origin', 'amount_reference'], {
    id: id('pay'),
    origin: { type: 'string', enum: ['button', 'request', 'stop'] },
    amount_reference: amount,
    receiver_credits: { type: 'array', items: ref('ReceiverCredit') },
    receiver_credits_summary: ref('ReceiverCreditsSummary'),
  }),
  // description is ours: INTERFACE.md's session shape does not name it (profiles.ts).
  PaymentSession: withOursRequired(
    ['description'],
    closed(
      [
        'session_id',
        'status',
        'agreement_id',
        'amount_reference',
        'currency_reference',
        'due_date_session',
        'due_date_reached_behavior',
        'webhook_url',
        'pay_url',
        'created_at',
        'accreditation',
        'session_payment',
        'description',
      ],
      {
        session_id: id('ses'),
        status: { type: 'string', enum: ['pending', 'paid', 'failed', 'expired'] },
        agreement_id: id('agr'),
        amount_reference: amount,
        currency_reference: currency,
        due_date_session: nullable(isoTime),
        due_date_reached_behavior: { type: 'string', enum: ['expire', 'keep_active'] },
        webhook_url: nullable({ type: 'string' }),
        pay_url: { type: 'string', format: 'uri' },
        created_at: isoTime,
        accreditation: closed(['status'], {
          status: { type: 'string', enum: ['none', 'scheduled', 'accredited', 'failed'] },
          scheduled_for: isoTime,
        }),
        session_payment: ref('SessionPayment'),
        description: nullable({ type: 'string' }),
        failure_reason: { type: 'string', description: 'Why leg 1 failed, when it did (e.g. insufficient_funds).' },
      },
    ),
  ),
  RequestBatchCreateRequest: closed(['sessions'], {
    sessions: { type: 'array', minItems: 1, maxItems: 100, items: ref('SessionCreateRequest') },
    continue_on_error: { type: 'boolean', description: 'Ignored by the simulator: the batch is all or nothing.' },
  }),
  RequestBatch: closed(['batch_id', 'sessions'], {
    batch_id: id('bat'),
    sessions: { type: 'array', items: ref('PaymentSession') },
  }),
  StopCreateRequest: closed(['name'], {
    name: { type: 'string', minLength: 1, maxLength: 128 },
    address: { type: 'string', maxLength: 256 },
    position: {
      type: 'integer',
      minimum: 1,
      maximum: 10_000,
      description: 'Where to insert it; after the last stop when absent.',
    },
  }),
  Stop: closed(['stop_id', 'name', 'address', 'position', 'session_ids', 'created_at'], {
    stop_id: id('stp'),
    name: { type: 'string' },
    address: nullable({ type: 'string' }),
    position: { type: 'integer', minimum: 1 },
    session_ids: { type: 'array', items: id('ses') },
    created_at: isoTime,
  }),
  StopList: closed(
    ['data'],
    { data: { type: 'array', items: ref('Stop') } },
    "The account's stops ordered by position.",
  ),
  StopSessionsRequest: closed(['sessions'], {
    sessions: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: { type: 'object', description: 'A SessionCreateRequest, validated item by item.' },
    },
    continue_on_error: { type: 'boolean', default: false },
  }),
  StopSessionsResult: closed(['results'], {
    results: {
      type: 'array',
      items: closed(['index', 'status'], {
        index: { type: 'integer', minimum: 0 },
        status: { type: 'integer', description: 'The HTTP status this item alone would have had.' },
        session: ref('PaymentSession'),
        error: ref('Error'),
      }),
    },
  }),
  StopReorderRequest: closed(['stop_ids'], {
    stop_ids: {
      type: 'array',
      minItems: 1,
      maxItems: 10_000,
      uniqueItems: true,
      items: { type: 'string', maxLength: 64 },
    },
  }),
  // The mocks' shapes are ours: the interface fixes only 200, x-svc-sim: mock and the same data for every account.
  MockStop: closed(
    ['stop_id', 'name', 'address', 'position', 'status'],
    {
      stop_id: { type: 'string' },
      name: { type: 'string' },
      address: { type: 'string' },
      position: { type: 'integer' },
      status: { type: 'string' },
    },
    'Fixed contract example, identical for every account.',
  ),
  MockStopHistory: closed(
    ['stop_id', 'history'],
    {
      stop_id: { type: 'string' },
      history: { type: 'array', items: closed(['at', 'event'], { at: { type: 'string' }, event: { type: 'string' } }) },
    },
    'Fixed contract example, identical for every account.',
  ),
  MockStopQuery: closed(
    ['data'],
    { data: { type: 'array', items: ref('MockStop') } },
    'Fixed contract example, identical for every account.',
  ),
  AnyObject: { type: 'object', description: 'Any JSON object; the mocked operations do not read it.' },
  OutcomeRequest: closed(['leg', 'outcome'], {
    leg: { type: 'integer', enum: [1, 2] },
    outcome: { type: 'string', enum: ['paid', 'failed', 'expired', 'accredited', 'accreditation_failed'] },
  }),
  // The interface fixes only 200 for a reset; its body is ours (profiles.ts).
  ResetResult: withOursRequired(
    ['status', 'deleted'],
    closed(['status', 'deleted'], {
      status: { type: 'string', enum: ['reset'] },
      deleted: { type: 'integer', minimum: 0, description: 'Records deleted.' },
    }),
  ),
};
