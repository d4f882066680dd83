import { isoTime, ref, type Schema } from '../helpers.js';

// Schemas of terminals, orders and settlements (INTERFACE.md §2, §3, §4).

export const serialNumber: Schema = { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$', examples: ['POS-0001'] };
export const orderId: Schema = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$', examples: ['ord_1001'] };
export const currency: Schema = { type: 'string', pattern: '^[A-Z]{3}$', examples: ['USD'] };
export const orderStatus: Schema = { type: 'string', enum: ['PENDING', 'PAID', 'DISCARDED', 'VOID_PENDING', 'VOIDED'] };
export const settlementFields = [
  'batchNumber',
  'transactionCount',
  'closedAt',
  'currencyReference',
  'terminal',
  'debitBatch',
] as const;

const envelope = (description: string, data: Schema | { $ref: string }): Schema => ({
  type: 'object',
  description,
  required: ['title', 'data'],
  properties: { title: { type: 'string' }, detail: { type: 'string' }, data },
  additionalProperties: false,
});

export const posSchemas: Record<string, Schema> = {
  TerminalCreateRequest: {
    type: 'object',
    required: ['serialNumber'],
    properties: { serialNumber, label: { type: 'string', minLength: 1, maxLength: 128 } },
    additionalProperties: false,
  },
  TerminalSecret: {
    type: 'object',
    description: 'A terminal with its HMAC secret, shown only here: at provisioning and at rotation.',
    required: ['serialNumber', 'secret', 'createdAt'],
    properties: {
      serialNumber,
      secret: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      createdAt: { ...isoTime, description: 'When this secret was created.' },
    },
    additionalProperties: false,
  },
  Terminal: {
    type: 'object',
    required: ['serialNumber', 'label', 'createdAt', 'secretRotatedAt'],
    // INTERFACE.md lists terminals without their secrets; label and secretRotatedAt are ours (profiles.ts).
    ...({ 'x-ours-required': ['label', 'secretRotatedAt'] } as object),
    properties: {
      serialNumber,
      label: { type: ['string', 'null'] },
      createdAt: isoTime,
      secretRotatedAt: { oneOf: [isoTime, { type: 'null' }] },
    },
    additionalProperties: false,
  },
  TerminalList: {
    type: 'object',
    required: ['data'],
    properties: { data: { type: 'array', items: ref('Terminal') } },
    additionalProperties: false,
  },
  OrderCreateRequest: {
    type: 'object',
    required: ['terminal', 'amount', 'currency'],
    properties: {
      orderId: { ...orderId, description: 'Generated when absent; 409 when taken.' },
      terminal: { ...serialNumber, description: "Serial number of one of this merchant's terminals." },
      amount: { type: 'integer', minimum: 1, maximum: 1_000_000_000_000, description: 'Minor units.' },
      currency,
      description: { type: 'string', maxLength: 256 },
    },
    additionalProperties: false,
  },
  OrderHistoryEntry: {
    type: 'object',
    required: ['from', 'to', 'trigger', 'actor', 'at'],
    properties: {
      from: orderStatus,
      to: orderStatus,
      trigger: { type: 'string', enum: ['invalidation', 'commit', 'invalidation/commit'] },
      actor: { type: 'string', enum: ['merchant', 'pos'] },
      at: isoTime,
      overridesDiscard: { type: 'boolean', enum: [true], description: 'On a commit that overrode a discard.' },
      reason: { type: 'string', description: "The merchant's reason, when an invalidation gave one." },
    },
    additionalProperties: false,
  },
  Order: {
    type: 'object',
    required: [
      'orderId',
      'merchantId',
      'terminal',
      'amount',
      'currency',
      'status',
      'createdAt',
      'updatedAt',
      'history',
    ],
    properties: {
      orderId,
      merchantId: { type: 'string' },
      terminal: serialNumber,
      amount: { type: 'integer', minimum: 1 },
      currency,
      status: orderStatus,
      authorizationCode: { type: 'string' },
      paidAt: isoTime,
      description: { type: 'string' },
      createdAt: isoTime,
      updatedAt: isoTime,
      history: { type: 'array', items: ref('OrderHistoryEntry') },
    },
    additionalProperties: false,
  },
  OrderEnvelope: envelope('One order.', ref('Order')),
  OrderListEnvelope: envelope('A page of orders, newest first.', { type: 'array', items: ref('Order') }),
  InvalidationRequest: {
    type: 'object',
    properties: { reason: { type: 'string', maxLength: 256 } },
    additionalProperties: false,
  },
  CommitRequest: {
    type: 'object',
    required: ['authorizationCode', 'paidAt'],
    properties: {
      authorizationCode: { type: 'string', pattern: '^[A-Za-z0-9]{1,32}$' },
      paidAt: isoTime,
      amount: { type: 'integer', minimum: 1, description: "When given, must equal the order's amount (else 422)." },
    },
    additionalProperties: false,
  },
  Settlement: {
    type: 'object',
    required: [...settlementFields],
    properties: {
      batchNumber: { type: 'string', minLength: 1, maxLength: 32 },
      transactionCount: { type: 'integer', minimum: 0, maximum: 1_000_000 },
      closedAt: isoTime,
      currencyReference: currency,
      terminal: { ...serialNumber, description: 'Must equal the serial number of the path.' },
      debitBatch: { type: 'string', minLength: 1, maxLength: 64 },
    },
    additionalProperties: false,
  },
  SettlementEnvelope: envelope(
    'The registered settlement; `detail` says whether it was new or a replay.',
    ref('Settlement'),
  ),
  SettlementListEnvelope: envelope('A page of settlements.', { type: 'array', items: ref('Settlement') }),
};
