import type { OpenAPIV3_1 } from 'openapi-types';
import { components, type HttpMethod, type Operation, type PathItems } from './components.js';
import { accountPaths } from './paths/accounts.js';
import { consolePaths } from './paths/console.js';
import { consoleApiPaths } from './paths/console-api.js';
import { consoleScenarioPaths } from './paths/console-scenarios.js';
import { controlPaths, withTestAliases } from './paths/control.js';
import { payPaths } from './paths/pay.js';
import { posPaths } from './paths/pos.js';
import { sessionControlPaths, sessionPaths } from './paths/sessions.js';
import { webhookDeliveries, webhookPaths } from './paths/webhooks.js';
import { systemPaths } from './paths/system.js';

/** The paths the account's rate brake covers (INTERFACE.md §8); the same list the server enforces. */
export const rateLimitedPrefixes = ['/api/v1/ext/', '/payment-sessions/', '/control/', '/__test__/'];

const rateLimitHeaders = {
  'X-RateLimit-Limit': {
    description: "When the account's rate brake is on: requests allowed a minute.",
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': {
    description: 'When the brake is on: requests left in this minute.',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Reset': {
    description: 'When the brake is on: the epoch second this minute ends.',
    schema: { type: 'integer' },
  },
};

/**
 * Every operation the rate brake covers can answer 429, and its other
 * answers carry X-RateLimit-* while the brake is on (INTERFACE.md §8).
 */
function withRateLimitAnswers(paths: PathItems): PathItems {
  const braked = (op: Operation): Operation => ({
    ...op,
    responses: {
      ...Object.fromEntries(
        Object.entries(op.responses ?? {}).map(([status, response]) => [
          status,
          '$ref' in response
            ? response
            : { ...response, headers: { ...(response as OpenAPIV3_1.ResponseObject).headers, ...rateLimitHeaders } },
        ]),
      ),
      '429': { $ref: '#/components/responses/RateLimited' },
    },
  });
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      rateLimitedPrefixes.some((prefix) => path.startsWith(prefix))
        ? Object.fromEntries(Object.entries(item).map(([method, op]) => [method, braked(op!)]))
        : item,
    ]),
  );
}

/** Operations that never read the store: everything else can answer 503 while the store is away. */
const storeFree = new Set(['getOpenApiDocument', 'getHealth']);

/**
 * Every operation that reads or writes the store answers 503
 * STORE_UNAVAILABLE with Retry-After when the store cannot be reached (the
 * database is away) or refuses the work; nothing was written.
 */
function withStoreUnavailableAnswers(paths: PathItems): PathItems {
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, op]) => [
          method,
          storeFree.has(op!.operationId ?? '')
            ? op
            : { ...op, responses: { ...op!.responses, '503': { $ref: '#/components/responses/StoreUnavailable' } } },
        ]),
      ),
    ]),
  );
}

/**
 * The OpenAPI 3.1 document of every operation the server answers. Routes are
 * bound by operationId from here, requests are validated against it before
 * any handler runs, and every test validates the answers it gets against it.
 */
export const openApiDocument: OpenAPIV3_1.Document = {
  openapi: '3.1.0',
  info: {
    title: 'svc payments, POS terminals and sandbox simulator',
    version: '0.1.0',
    license: { name: 'MIT', identifier: 'MIT' },
    description:
      'Merchant orders worked on by POS terminals, batch settlements, the payment-session product and the sandbox simulator. ' +
      'Every error answers { message, code, details? }. Unknown paths answer 404 and a wrong method 405 with Allow, both with that body.',
  },
  servers: [{ url: 'http://127.0.0.1:3000', description: 'npm start' }],
  tags: [
    { name: 'accounts', description: 'Sign-up, login and tokens (INTERFACE.md §1).' },
    { name: 'terminals', description: 'POS terminals of a merchant and their HMAC secrets (INTERFACE.md §2).' },
    { name: 'orders', description: 'Orders worked on by the merchant and its POS terminals (INTERFACE.md §3).' },
    { name: 'settlements', description: 'Batch closes reported by terminals (INTERFACE.md §4).' },
    {
      name: 'payment sessions',
      description: 'Agreements, partners, split, sessions, batches and stops (INTERFACE.md §5).',
    },
    { name: 'simulator', description: 'Surfaces that exist only in the simulator.' },
    { name: 'console', description: 'The console API, opened by the console token.' },
    { name: 'control', description: 'The control plane, also under /__test__ (INTERFACE.md §6).' },
  ],
  paths: withStoreUnavailableAnswers(
    withRateLimitAnswers({
      ...systemPaths,
      ...accountPaths,
      ...consolePaths,
      ...withTestAliases({ ...controlPaths, ...sessionControlPaths }),
      ...posPaths,
      ...sessionPaths,
      ...webhookPaths,
      ...consoleApiPaths,
      ...consoleScenarioPaths,
      ...payPaths,
    }),
  ) as OpenAPIV3_1.PathsObject,
  webhooks: webhookDeliveries,
  components,
};

export type { HttpMethod };
export const httpMethods: HttpMethod[] = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

export interface OperationEntry {
  operationId: string;
  /** The operation whose handler answers this one (`x-alias-of`), else operationId. */
  handlerId: string;
  method: HttpMethod;
  path: string;
  operation: Operation;
}

/** Every operation of a document, in document order. */
/**
 * Every operation of a document. Ours names each with an operationId; a
 * document served by another implementation may not (`requireIds: false`),
 * and its operations are then named `METHOD /path`.
 */
export function listOperations(
  doc: OpenAPIV3_1.Document = openApiDocument,
  options: { requireIds?: boolean } = {},
): OperationEntry[] {
  const entries: OperationEntry[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of httpMethods) {
      const operation = (item as Partial<Record<HttpMethod, Operation>> | undefined)?.[method];
      if (!operation) continue;
      if (!operation.operationId && options.requireIds !== false)
        throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      const operationId = operation.operationId ?? `${method.toUpperCase()} ${path}`;
      const aliasOf = (operation as { 'x-alias-of'?: string })['x-alias-of'];
      entries.push({ operationId, handlerId: aliasOf ?? operationId, method, path, operation });
    }
  }
  return entries;
}
