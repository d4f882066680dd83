import type { OpenAPIV3_1 } from 'openapi-types';
import { listOperations, openApiDocument, rateLimitedPrefixes, type OperationEntry } from '../openapi.js';
import { resolveRef } from '../validator.js';
import { documentFor, oursOnlyOperations } from '../profiles.js';
import { touches } from './checks/catalogue.js';
import { checkRegistration } from './checks/fixtures.js';
import type { ScenarioContext, World } from './scenarios.js';

const schemeOf = (entry: OperationEntry) => Object.keys((entry.operation.security ?? [])[0] ?? {})[0];
const statuses = (entry: OperationEntry) => Object.keys(entry.operation.responses ?? {});

/** A path parameter's value from the world, or undefined when the world holds no such record. */
function worldValues(world: Partial<World>): Record<string, string | undefined> {
  return {
    merchantId: world.merchantId,
    serialNumber: world.serial,
    session_id: world.sessionId,
    stop_id: world.stopId,
    batch_id: world.batchId,
    event_id: world.eventId,
    account_id: world.accountId,
    receiver: 'captura',
  };
}

/** The operation's path with its parameters filled from the world; an id the world lacks is `no-such-order` or `unknown`. */
export function concretePath(
  entry: OperationEntry,
  world: Partial<World>,
  overrides: Record<string, string> = {},
): string {
  const values: Record<string, string | undefined> = { orderId: 'no-such-order', ...worldValues(world), ...overrides };
  return entry.path.replace(/\{([^}]+)\}/g, (_all, name: string) => encodeURIComponent(values[name] ?? 'unknown'));
}

/** Whether the operation's path, filled from the world, names an id the world does not hold. */
function namesUnknownId(entry: OperationEntry, world: Partial<World>): boolean {
  const known = worldValues(world);
  return [...entry.path.matchAll(/\{([^}]+)\}/g)].some(([, name]) => !known[name!]);
}

function jsonBodySchema(doc: OpenAPIV3_1.Document, entry: OperationEntry): OpenAPIV3_1.SchemaObject | null {
  if (!entry.operation.requestBody || (entry.operation as { 'x-raw-body'?: boolean })['x-raw-body']) return null;
  const body = resolveRef<OpenAPIV3_1.RequestBodyObject>(doc, entry.operation.requestBody);
  const schema = body.content['application/json']?.schema;
  return schema ? resolveRef<OpenAPIV3_1.SchemaObject>(doc, schema) : null;
}

/**
 * Negative requests generated from the document: without auth, with
 * malformed JSON, missing required fields, wrong types, unknown properties,
 * another media type, an oversized body, a bad path parameter. Each must get
 * a documented 4xx with the error schema; another answer is a problem.
 */
export async function negativeRequests(
  ctx: ScenarioContext,
  world: World,
  options: { mutations: boolean },
): Promise<void> {
  // In the interface profile: not the operations that are ours alone, and not the probes whose answer only this
  // document fixes (415 for another media type, 400 for an unknown field or an out-of-range value of ours).
  const interfaceOnly = ctx.profile === 'interface';
  // Probed from the document the profile judges by: in `interface`, only the fields and statuses the interface holds.
  const doc = documentFor(ctx.profile, openApiDocument);
  const ours = interfaceOnly ? oursOnlyOperations(openApiDocument) : new Set<string>();
  for (const entry of listOperations(doc)) {
    if (!options.mutations && entry.method.toUpperCase() !== 'GET') continue;
    if (ours.has(entry.operationId)) continue;
    if (ctx.operations && !touches({ operations: [entry.operationId] }, ctx.operations)) continue;
    await probeOperation(ctx, world, doc, entry, interfaceOnly);
  }
}

/** Sends one probe and says whether the status is the one expected (when the document lists it). */
type Probe = (status: number, what: string, request: Parameters<ScenarioContext['http']>[2]) => Promise<void>;

/** Every wrong request one operation can be sent, each expected to get its documented 4xx. */
async function probeOperation(
  ctx: ScenarioContext,
  world: World,
  doc: OpenAPIV3_1.Document,
  entry: OperationEntry,
  interfaceOnly: boolean,
): Promise<void> {
  const method = entry.method.toUpperCase();
  const scheme = schemeOf(entry);
  const documented = statuses(entry);
  const token = scheme === 'consoleBearer' ? world.consoleToken : scheme === 'apiBearer' ? world.token : undefined;
  // Probes past authentication need a real token of the right kind (read-only runs may have none).
  const authenticated = scheme === undefined || (token !== undefined && !token.endsWith('_none'));
  const path = concretePath(entry, world);
  // A path naming an id nothing in the world holds: in `interface`, a 404 may win over the body's answer (open choice not-found-or-invalid-first).
  const unknownIdInPath = interfaceOnly && namesUnknownId(entry, world);
  const expect: Probe = async (status, what, request) => {
    if (!documented.includes(String(status))) return;
    const answer = await ctx.http(method, path, request);
    if (status !== 401 && unknownIdInPath && answer.status === 404) return;
    // No answer at all is already reported, by name, by the client.
    if (answer.status !== 0 && answer.status !== status)
      ctx.expectations.fail(
        answer,
        '',
        `${status}${unknownIdInPath && status !== 401 ? ' (or 404)' : ''} for ${what}`,
        `${answer.status}${answer.body?.code ? ` ${answer.body.code}` : ''}`,
      );
  };
  if (scheme === 'apiBearer' || scheme === 'consoleBearer' || scheme === 'posSignature') {
    await expect(401, 'no credentials', {});
    if (scheme !== 'posSignature')
      await expect(401, 'a token of the other kind', {
        token: scheme === 'apiBearer' ? world.consoleToken : world.token,
      });
  }
  if (!authenticated) return;
  const schema = jsonBodySchema(doc, entry);
  if (schema && scheme !== 'posSignature') await probeBody(expect, schema, token, interfaceOnly);
  if (scheme !== 'posSignature' && documented.includes('400') && !interfaceOnly)
    await probePathBounds(ctx, world, doc, entry, token, schema !== null);
}

/** Bodies an operation taking JSON must refuse: malformed, of another type, too large, missing or wrong fields. */
async function probeBody(
  expect: Probe,
  schema: NonNullable<ReturnType<typeof jsonBodySchema>>,
  token: string | undefined,
  interfaceOnly: boolean,
): Promise<void> {
  const auth = token ? { token } : {};
  await expect(400, 'malformed JSON', { raw: '{"broken": ', headers: { 'content-type': 'application/json' }, ...auth });
  if (!interfaceOnly)
    await expect(415, 'a text/plain body', { raw: 'hello', headers: { 'content-type': 'text/plain' }, ...auth });
  await expect(413, 'a body over 1 MiB', {
    raw: `{"x":"${'y'.repeat(1024 * 1024)}"}`,
    headers: { 'content-type': 'application/json' },
    ...auth,
  });
  const required = (schema.required ?? []) as string[];
  if (required.length > 0) await expect(400, 'missing required fields', { json: {}, ...auth });
  if (schema.additionalProperties === false && !interfaceOnly)
    await expect(400, 'an unknown property', { json: { not_a_field: true }, ...auth });
  const firstProperty = Object.keys(schema.properties ?? {})[0];
  if (firstProperty) await expect(400, 'a wrong type', { json: { [firstProperty]: [[{}]] }, ...auth });
  const outOfRange = outOfRangeValue(schema);
  if (outOfRange && !interfaceOnly)
    await expect(400, `an out-of-range ${outOfRange[0]}`, { json: { [outOfRange[0]]: outOfRange[1] }, ...auth });
}

/** A path parameter past its bounds (length or pattern) is 400 or 404, never served. */
async function probePathBounds(
  ctx: ScenarioContext,
  world: World,
  doc: OpenAPIV3_1.Document,
  entry: OperationEntry,
  token: string | undefined,
  takesBody: boolean,
): Promise<void> {
  const boundedParameter = (entry.operation.parameters ?? [])
    .map((p) => resolveRef<OpenAPIV3_1.ParameterObject>(doc, p))
    .filter((p) => p.in === 'path')
    .find(
      (p) =>
        typeof (p.schema as { maxLength?: number } | undefined)?.maxLength === 'number' ||
        typeof (p.schema as { pattern?: string } | undefined)?.pattern === 'string',
    );
  if (!boundedParameter) return;
  const bad = concretePath(entry, world, { [boundedParameter.name]: 'x'.repeat(300) });
  const answer = await ctx.http(entry.method.toUpperCase(), bad, {
    ...(token ? { token } : {}),
    ...(takesBody ? { json: {} } : {}),
  });
  if (answer.status !== 0 && answer.status !== 400 && answer.status !== 404)
    ctx.expectations.fail(answer, '', '400 or 404 for a path parameter out of its bounds', `${answer.status}`);
}

/** With the brake at one request a minute on a throwaway account, every braked operation answers 429. */
export async function rateLimitScenario(ctx: ScenarioContext): Promise<void> {
  const { http } = ctx;
  const email = `brake-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.com`;
  const account = (await http('POST', '/console/register', { json: { email, password: 'brake password' } })).body;
  checkRegistration(account);
  await http('PUT', '/console/rate-limit', { json: { per_minute: 1 }, token: account.console_token });
  await http('PUT', '/console/rate-limit', { json: { per_minute: 0 }, token: account.console_token }); // 400
  await http('GET', '/control/clock', { token: account.key.token }); // uses the one request of the minute
  const world = {
    merchantId: account.merchant_id,
    accountId: account.account_id,
    sessionId: 'ses_000000000000000000',
    stopId: 'stp_000000000000000000',
    batchId: 'bat_000000000000000000',
  };
  const ours = ctx.profile === 'interface' ? oursOnlyOperations(openApiDocument) : new Set<string>();
  for (const entry of listOperations(openApiDocument)) {
    if (!rateLimitedPrefixes.some((prefix) => entry.path.startsWith(prefix))) continue;
    const method = entry.method.toUpperCase();
    if (ours.has(entry.operationId)) continue;
    const answer = await http(method, concretePath(entry, world), {
      token: account.key.token,
      ...(method === 'GET' ? {} : { json: {} }),
    });
    if (answer.status !== 0 && answer.status !== 429)
      ctx.expectations.fail(
        answer,
        '',
        '429 RATE_LIMITED: braked at 1 a minute, the second request',
        `${answer.status}`,
      );
  }
  // Reset sets the account back, brake included: then it answers.
  await http('PUT', '/console/rate-limit', { json: { per_minute: null }, token: account.console_token });
  await http('POST', '/control/reset', { token: account.key.token });
  await http('POST', '/__test__/reset', { token: account.key.token });
}

/** The signed POS operations' own 4xx: a bad query, path, body or media type, correctly signed. */
export async function signedNegatives(ctx: ScenarioContext, world: World): Promise<void> {
  const base = `/api/v1/pos-terminals/${world.serial}`;
  // The order `any` exists nowhere: in `interface`, its 404 may win over the body's answer (open choice not-found-or-invalid-first).
  const interfaceOnly = ctx.profile === 'interface';
  const expect = async (status: number, what: string, send: Promise<{ status: number }>, namesNoOrder = false) => {
    const answer = await send.catch((error: unknown) =>
      ctx.problem(`signed ${what} got no answer (${networkReason(error)}), expected ${status}`),
    );
    if (answer && interfaceOnly && namesNoOrder && answer.status === 404) return;
    if (answer && answer.status !== 599 && answer.status !== status)
      ctx.expectations.fail(null, '', `${status} for a signed ${what}`, `${answer.status}`);
  };
  await expect(400, 'list with size=0', world.pos.send('GET', `${base}/transactions?size=0`));
  await expect(
    400,
    'commit with malformed JSON',
    world.pos.send('POST', `${base}/transactions/any/commit`, '{"broken": '),
    true,
  );
  await expect(400, 'commit without fields', world.pos.send('POST', `${base}/transactions/any/commit`, '{}'), true);
  if (!interfaceOnly)
    await expect(
      415,
      'commit as text/plain',
      world.pos.send('POST', `${base}/transactions/any/commit`, 'hello', 'text/plain'),
    );
  await expect(
    413,
    'commit over 1 MiB',
    world.pos.send('POST', `${base}/transactions/any/commit`, `{"x":"${'y'.repeat(1024 * 1024)}"}`),
    true,
  );
  await expect(
    400,
    'void with a bad order id',
    world.pos.send('POST', `${base}/transactions/${'x'.repeat(100)}/invalidation/commit`),
    true,
  );
  await expect(400, 'settlement without fields', world.pos.send('POST', `${base}/settlements`, '{}'));
  if (!interfaceOnly)
    await expect(415, 'settlement as text/plain', world.pos.send('POST', `${base}/settlements`, 'hello', 'text/plain'));
  await expect(
    413,
    'settlement over 1 MiB',
    world.pos.send('POST', `${base}/settlements`, `{"x":"${'y'.repeat(1024 * 1024)}"}`),
  );
}

/** A value just outside a property's bounds (minimum, maximum, maxLength, enum), if the schema has one. */
function outOfRangeValue(schema: OpenAPIV3_1.SchemaObject): [string, unknown] | null {
  for (const [name, raw] of Object.entries(schema.properties ?? {})) {
    const property = resolveRef<OpenAPIV3_1.SchemaObject>(openApiDocument, raw);
    if (typeof property.minimum === 'number') return [name, property.minimum - 1];
    if (typeof property.exclusiveMinimum === 'number') return [name, property.exclusiveMinimum];
    if (typeof property.maximum === 'number') return [name, property.maximum + 1];
    if (typeof property.maxLength === 'number') return [name, 'x'.repeat(property.maxLength + 1)];
    if (Array.isArray(property.enum) && property.enum.every((v) => typeof v === 'string'))
      return [name, 'not-one-of-them'];
  }
  return null;
}

/**
 * Why a probe got no answer. A reset on an oversized body usually means the
 * server closed the connection without reading the body it refused.
 */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
