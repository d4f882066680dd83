import type { OpenAPIV3_1 } from 'openapi-types';
import { bodyErrors, jsonResponse, ref, responseRef, writeErrors, type PathItems } from '../components.js';
import { orderId, orderStatus, serialNumber, settlementFields } from '../schemas/pos.js';

const bearer = [{ apiBearer: [] }];
const signed = [{ posSignature: [] }];

// openapi-types types a 3.1 parameter's schema as a 3.0 schema; the cast is the one place that shows.
const asParameterSchema = (schema: OpenAPIV3_1.SchemaObject) => schema as OpenAPIV3_1.ParameterObject['schema'];
const path = (name: string, schema: OpenAPIV3_1.SchemaObject, description: string): OpenAPIV3_1.ParameterObject => ({
  name,
  in: 'path',
  required: true,
  schema: asParameterSchema(schema),
  description,
});
const merchantIdParam = path(
  'merchantId',
  { type: 'string', maxLength: 64 },
  'The `merchant_id` of the calling account.',
);
const serialParam = path('serialNumber', serialNumber, 'Serial number of the terminal.');
const orderIdParam = path('orderId', orderId, 'The order.');
const statusParam: OpenAPIV3_1.ParameterObject = {
  name: 'status',
  in: 'query',
  schema: asParameterSchema(orderStatus),
  description: 'Only orders in this status.',
};
const sizeParam: OpenAPIV3_1.ParameterObject = {
  name: 'size',
  in: 'query',
  schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
};
const pageParam: OpenAPIV3_1.ParameterObject = {
  name: 'page',
  in: 'query',
  schema: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 },
};

const orderAnswer = (description: string) => jsonResponse(description, ref('OrderEnvelope'));
const conflict = { '409': responseRef('OrderConflict') };
const signatureErrors = { '401': responseRef('SignatureRejected') };

export const posPaths: PathItems = {
  '/api/v1/merchants/{merchantId}/pos-terminals': {
    post: {
      operationId: 'provisionTerminal',
      summary: 'Provision a POS terminal and get its HMAC secret (shown once)',
      tags: ['terminals'],
      security: bearer,
      parameters: [merchantIdParam],
      requestBody: { required: true, content: { 'application/json': { schema: ref('TerminalCreateRequest') } } },
      responses: {
        '201': jsonResponse('The terminal with its secret: 64 lowercase hex characters.', ref('TerminalSecret')),
        ...bodyErrors,
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
        '409': responseRef('Conflict'),
        ...writeErrors,
      },
    },
    get: {
      operationId: 'listTerminals',
      summary: "The merchant's terminals, without secrets",
      tags: ['terminals'],
      security: bearer,
      parameters: [merchantIdParam],
      responses: {
        '200': jsonResponse('Every terminal of the merchant, oldest first.', ref('TerminalList')),
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
      },
    },
  },
  '/api/v1/merchants/{merchantId}/pos-terminals/{serialNumber}/secret': {
    post: {
      operationId: 'rotateTerminalSecret',
      summary: "Replace a terminal's secret; the old one stops working at once",
      tags: ['terminals'],
      security: bearer,
      parameters: [merchantIdParam, serialParam],
      responses: {
        '201': jsonResponse('The terminal with its new secret.', ref('TerminalSecret')),
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
        ...writeErrors,
      },
    },
  },
  '/api/v1/merchants/{merchantId}/transactions': {
    post: {
      operationId: 'createOrder',
      summary: "Create an order for one of the merchant's terminals",
      tags: ['orders'],
      security: bearer,
      parameters: [merchantIdParam],
      requestBody: { required: true, content: { 'application/json': { schema: ref('OrderCreateRequest') } } },
      responses: {
        '201': jsonResponse('The order, PENDING.', ref('OrderEnvelope')),
        ...bodyErrors,
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
        '409': responseRef('Conflict'),
        ...writeErrors,
      },
    },
    get: {
      operationId: 'listMerchantOrders',
      summary: "The merchant's orders, optionally in one status",
      tags: ['orders'],
      security: bearer,
      parameters: [merchantIdParam, statusParam, sizeParam, pageParam],
      responses: {
        '200': jsonResponse('A page of orders, newest first.', ref('OrderListEnvelope')),
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
      },
    },
  },
  '/api/v1/merchants/{merchantId}/transactions/{orderId}': {
    get: {
      operationId: 'getOrder',
      summary: 'One order with its history',
      tags: ['orders'],
      security: bearer,
      parameters: [merchantIdParam, orderIdParam],
      responses: {
        '200': orderAnswer('The order.'),
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
      },
    },
  },
  '/api/v1/merchants/{merchantId}/transactions/{orderId}/invalidation': {
    post: {
      operationId: 'invalidateOrder',
      summary: 'Discard a PENDING order or ask to void a PAID one',
      description:
        'PENDING → DISCARDED; PAID → VOID_PENDING; DISCARDED and VOID_PENDING answer 200 unchanged; VOIDED answers 409. Takes no body; an optional `{ "reason" }` is kept in the history.',
      tags: ['orders'],
      security: bearer,
      parameters: [merchantIdParam, orderIdParam],
      requestBody: { required: false, content: { 'application/json': { schema: ref('InvalidationRequest') } } },
      responses: {
        '200': orderAnswer('The order as it now is.'),
        ...bodyErrors,
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
        ...conflict,
        ...writeErrors,
      },
    },
  },
  '/api/v1/pos-terminals/{serialNumber}/transactions': {
    get: {
      operationId: 'listTerminalOrders',
      summary: "The terminal's orders, optionally in one status (e.g. VOID_PENDING)",
      tags: ['orders'],
      security: signed,
      parameters: [serialParam, statusParam, sizeParam, pageParam],
      responses: {
        '200': jsonResponse("A page of this terminal's orders, newest first.", ref('OrderListEnvelope')),
        '400': responseRef('BadRequest'),
        ...signatureErrors,
      },
    },
  },
  '/api/v1/pos-terminals/{serialNumber}/transactions/{orderId}/commit': {
    post: {
      operationId: 'commitOrderPayment',
      summary: 'Payment confirmation from the POS',
      description:
        "PENDING → PAID; DISCARDED → PAID, recorded as overriding the discard; PAID answers 200 unchanged with the same authorizationCode, else 409; VOID_PENDING and VOIDED answer 409. An `amount` different from the order's answers 422.",
      tags: ['orders'],
      security: signed,
      parameters: [serialParam, orderIdParam],
      requestBody: { required: true, content: { 'application/json': { schema: ref('CommitRequest') } } },
      responses: {
        '200': orderAnswer('The order as it now is.'),
        ...bodyErrors,
        ...signatureErrors,
        '404': responseRef('NotFound'),
        ...conflict,
        '422': responseRef('AmountMismatch'),
        ...writeErrors,
      },
    },
  },
  '/api/v1/pos-terminals/{serialNumber}/transactions/{orderId}/invalidation/commit': {
    post: {
      operationId: 'commitOrderVoid',
      summary: 'Void confirmation from the POS; no body, signed over the empty string',
      description: 'VOID_PENDING → VOIDED; VOIDED answers 200 unchanged; any other status answers 409.',
      tags: ['orders'],
      security: signed,
      parameters: [serialParam, orderIdParam],
      responses: {
        '200': orderAnswer('The order as it now is.'),
        '400': responseRef('BadRequest'),
        ...signatureErrors,
        '404': responseRef('NotFound'),
        ...conflict,
        ...writeErrors,
      },
    },
  },
  '/api/v1/pos-terminals/{serialNumber}/settlements': {
    post: {
      operationId: 'notifySettlement',
      summary: 'Report a closed batch',
      description:
        'Idempotent by (terminal, batchNumber): the same six fields again answer 200 with the stored settlement (`detail` says it was a replay); different fields answer 409 SETTLEMENT_CONFLICT.',
      tags: ['settlements'],
      security: signed,
      parameters: [serialParam],
      requestBody: { required: true, content: { 'application/json': { schema: ref('Settlement') } } },
      responses: {
        '200': jsonResponse('The registered settlement.', ref('SettlementEnvelope')),
        ...bodyErrors,
        ...signatureErrors,
        '409': responseRef('Conflict'),
        ...writeErrors,
      },
    },
  },
  '/api/v1/merchants/{merchantId}/pos-terminals/{serialNumber}/settlements': {
    get: {
      operationId: 'listSettlements',
      summary: "A terminal's settlements; the latest is sort=-closedAt&size=1",
      tags: ['settlements'],
      security: bearer,
      parameters: [
        merchantIdParam,
        serialParam,
        {
          name: 'sort',
          in: 'query',
          schema: {
            type: 'string',
            enum: settlementFields.flatMap((field) => [field, `-${field}`]),
            default: '-closedAt',
          },
          description: 'A field name; a leading minus sorts descending.',
        },
        sizeParam,
        pageParam,
        {
          name: 'from',
          in: 'query',
          schema: { type: 'string', format: 'date-time' },
          description: 'Only settlements closed at or after this time.',
        },
        {
          name: 'to',
          in: 'query',
          schema: { type: 'string', format: 'date-time' },
          description: 'Only settlements closed at or before this time.',
        },
      ],
      responses: {
        '200': jsonResponse('A page of settlements.', ref('SettlementListEnvelope')),
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
      },
    },
  },
};
