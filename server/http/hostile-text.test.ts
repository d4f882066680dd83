import type { OpenAPIV3_1 } from 'openapi-types';
import t, { type Test } from 'tap';
import { listOperations, openApiDocument, type OperationEntry } from '../../contracts/openapi.js';
import { resolveRef } from '../../contracts/validator.js';
import { signPosRequest } from '../../contracts/clients/pos-client.js';
import { ManualClock } from '../clock.js';
import { defaultConfig } from '../config.js';
import { EmbeddedStore } from '../store/embedded/embedded-store.js';
import { PgStore } from '../store/postgres/pg-store.js';
import { postgresSkip, startPostgres } from '../store/postgres/pg-testing.js';
import type { Store } from '../store/store.js';
import type { AppDeps } from '../app.js';
import { serveApp } from '../testing/test-server.js';

// Text PostgreSQL cannot hold as it is (NUL, lone surrogates) in every
// string field of every request body, every path parameter and every query
// parameter, on both stores: never a 5xx, and what is accepted reads back
// equal. One rule for both stores (docs/postgresql.md, Text).

const HOSTILE_STRINGS = ['a\u0000b', '\ud800', 'x\udc00y', '\u0001'];
const HOSTILE_PARAMS = ['a%00b', '%00', '%ED%A0%80', '%FF'];
// Numbers a numeric parameter must refuse with 400 on both stores: past any
// bound as Infinity, negative zero, a fraction, past 2^53, and text that
// JavaScript alone reads as a number.
const HOSTILE_NUMBERS = [
  '1e309',
  '-1e309',
  '-0',
  '1.5',
  '9007199254740993',
  '1e3',
  '0x10',
  '%205',
  '+5',
  '',
  'NaN',
  'Infinity',
];

type Schema = OpenAPIV3_1.SchemaObject;
const resolve = (schema: unknown): Schema => resolveRef<Schema>(openApiDocument, schema as Schema);

/** What the world holds, by property name, for fields that must name a real record. */
interface World {
  [name: string]: string;
}

/** A value the schema accepts, using the world's ids for fields that name records. */
function sample(schema: Schema, name: string, world: World): unknown {
  const s = resolve(schema);
  if (world[name] !== undefined && (s.type === 'string' || s.type === undefined)) return world[name];
  if (s.allOf) return Object.assign({}, ...s.allOf.map((part) => sample(part as Schema, name, world)));
  if (s.oneOf ?? s.anyOf) return sample((s.oneOf ?? s.anyOf)![0] as Schema, name, world);
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  const type = Array.isArray(s.type) ? s.type.find((each) => each !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const required = new Set(s.required ?? []);
      return Object.fromEntries(
        Object.entries(s.properties ?? {})
          .filter(([key]) => required.has(key))
          .map(([key, value]) => [key, sample(value as Schema, key, world)]),
      );
    }
    case 'array': {
      const min = s.minItems ?? 1;
      return Array.from({ length: Math.max(1, min) }, () =>
        sample((s as { items?: Schema }).items as Schema, name, world),
      );
    }
    case 'integer':
    case 'number':
      return Math.max(1, typeof s.minimum === 'number' ? s.minimum : 1);
    case 'boolean':
      return false;
    case 'string':
      if (s.format === 'email') return `probe-${Math.random().toString(36).slice(2)}@example.com`;
      if (s.format === 'date-time') return new Date(Date.now() + 3_600_000).toISOString();
      if (s.format === 'uri') return 'https://example.com/hook';
      return 'probe';
    default:
      return 'probe';
  }
}

/** JSON pointers (as key paths) of every string a body of this schema can carry, required or not. */
function stringLeaves(schema: Schema, path: Array<string | number> = [], depth = 0): Array<Array<string | number>> {
  const s = resolve(schema);
  if (depth > 4) return [];
  if (s.allOf) return s.allOf.flatMap((part) => stringLeaves(part as Schema, path, depth + 1));
  const type = Array.isArray(s.type) ? s.type.find((each) => each !== 'null') : s.type;
  if (type === 'string' && !s.enum && s.const === undefined) return [path];
  if (type === 'object')
    return Object.entries(s.properties ?? {}).flatMap(([key, value]) =>
      stringLeaves(value as Schema, [...path, key], depth + 1),
    );
  if (type === 'array' && (s as { items?: Schema }).items)
    return stringLeaves((s as { items?: Schema }).items as Schema, [...path, 0], depth + 1);
  return [];
}

function withValueAt(
  body: unknown,
  path: Array<string | number>,
  value: unknown,
  schema: Schema,
  world: World,
): unknown {
  if (path.length === 0) return value;
  const s = resolve(schema);
  const [key, ...rest] = path as [string | number, ...Array<string | number>];
  if (typeof key === 'number') {
    const items =
      Array.isArray(body) && body.length > 0
        ? [...body]
        : [sample((s as { items?: Schema }).items as Schema, '', world)];
    items[0] = withValueAt(items[0], rest, value, (s as { items?: Schema }).items as Schema, world);
    return items;
  }
  const properties = (
    s.allOf ? Object.assign({}, ...s.allOf.map((part) => resolve(part).properties)) : s.properties
  ) as Record<string, Schema>;
  const current =
    (body as Record<string, unknown>)?.[key] ?? (rest.length > 0 ? sample(properties[key]!, key, world) : undefined);
  return { ...(body as Record<string, unknown>), [key]: withValueAt(current, rest, value, properties[key]!, world) };
}

async function probeEverything(t: Test, store: Store, sharing: AppDeps['sharing'] = 'one-process') {
  const clock = new ManualClock(Date.now());
  const { api, stop, baseUrl } = await serveApp({
    store,
    sharing,
    clock,
    config: { ...defaultConfig, scryptCost: 1024, logLevel: 'silent' },
  });
  t.teardown(stop);
  const account = (
    await api.post('/console/register', { json: { email: `hostile-${store.kind}@example.com`, password: '12345678' } })
  ).body;
  const token = account.key.token as string;
  const post = async (path: string, json: unknown) => (await api.post(path, { json, token })).body;
  const terminal = await post(`/api/v1/merchants/${account.merchant_id}/pos-terminals`, {
    serialNumber: `HOST-${store.kind}`,
  });
  const agreement = await post('/api/v1/ext/agreements', {
    name: 'Shop',
    currency_reference: 'USD',
    split: true,
    payment_methods: ['card'],
  });
  const partner = await post('/api/v1/ext/partners', { name: 'P', document_id: 'D-1' });
  await post('/api/v1/ext/split-agreements', { agreement_id: agreement.agreement_id, partner_id: partner.partner_id });
  const session = await post('/api/v1/ext/payment-sessions/buttons', {
    agreement_id: agreement.agreement_id,
    amount_reference: 10,
  });
  const world: World = {
    account_id: account.account_id,
    merchantId: account.merchant_id,
    serialNumber: terminal.serialNumber,
    terminal: terminal.serialNumber,
    agreement_id: agreement.agreement_id,
    partner_id: partner.partner_id,
    session_id: session.session_id,
    receiver: 'captura',
    currency_reference: 'USD',
    currency: 'USD',
  };

  const serverErrors: string[] = [];
  const numericNot400: string[] = [];
  let numericProbes = 0;
  let probes = 0;
  let serial = 0;
  const send = async (entry: OperationEntry, url: string, what: string, body?: unknown) => {
    const method = entry.method.toUpperCase();
    const scheme = Object.keys((entry.operation.security ?? openApiDocument.security ?? [])[0] ?? {})[0];
    const raw = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const headers: Record<string, string> = raw === undefined ? {} : { 'content-type': 'application/json' };
    if (scheme === 'apiBearer') headers.authorization = `Bearer ${token}`;
    if (scheme === 'consoleBearer') headers.authorization = `Bearer ${account.console_token}`;
    if (scheme === 'posSignature')
      Object.assign(
        headers,
        signPosRequest({ secret: terminal.secret, method, url, body: raw ?? '', now: clock.now() + (serial += 1) }),
      );
    probes += 1;
    const response = await fetch(`${baseUrl}${url}`, { method, headers, ...(raw !== undefined ? { body: raw } : {}) });
    // A stream that was opened (the console's trace stream) stays open: its status is the answer.
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
      await response.body?.cancel();
      return { status: response.status, text: '' };
    }
    const text = await response.text();
    if (
      response.status >= 500 &&
      !(
        entry.operationId === 'receiveFailWebhook' &&
        response.status === 500 &&
        text.includes('RECEIVER_FAILS_ON_PURPOSE')
      )
    ) {
      serverErrors.push(`${entry.operationId} ${what}: ${response.status} ${text.slice(0, 120)}`);
    }
    return { status: response.status, text };
  };

  for (const entry of listOperations(openApiDocument)) {
    if (entry.path === '/relay') continue; // a WebSocket upgrade
    const parameters = (entry.operation.parameters ?? []).map((p) =>
      resolveRef<OpenAPIV3_1.ParameterObject>(openApiDocument, p),
    );
    const pathWith = (overrides: Record<string, string>) =>
      entry.path.replace(
        /\{([^}]+)\}/g,
        (_, name: string) => overrides[name] ?? encodeURIComponent(world[name] ?? 'x1'),
      );
    const bodySchema =
      entry.operation.requestBody && !(entry.operation as { 'x-raw-body'?: boolean })['x-raw-body']
        ? resolve(
            resolveRef<OpenAPIV3_1.RequestBodyObject>(openApiDocument, entry.operation.requestBody).content[
              'application/json'
            ]?.schema,
          )
        : null;
    const rawBodyOperation = (entry.operation as { 'x-raw-body'?: boolean })['x-raw-body'] === true;
    const baseBody = () => {
      if (rawBodyOperation) return { anything: 'goes' };
      if (!bodySchema) return undefined;
      const body = sample(bodySchema, '', world) as Record<string, unknown>;
      if (entry.operationId === 'provisionTerminal') body.serialNumber = `H-${store.kind}-${(serial += 1)}`;
      if (entry.operationId === 'createOrder') body.orderId = `h-${(serial += 1)}`;
      return body;
    };

    for (const parameter of parameters.filter((p) => p.in === 'path')) {
      for (const value of HOSTILE_PARAMS)
        await send(entry, pathWith({ [parameter.name]: value }), `path ${parameter.name}=${value}`, baseBody());
    }
    for (const parameter of parameters.filter((p) => p.in === 'query')) {
      for (const value of HOSTILE_PARAMS)
        await send(entry, `${pathWith({})}?${parameter.name}=${value}`, `query ${parameter.name}=${value}`, baseBody());
      if (resolve(parameter.schema).type !== 'integer') continue;
      for (const value of HOSTILE_NUMBERS) {
        const what = `query ${parameter.name}=${value}`;
        const { status, text } = await send(entry, `${pathWith({})}?${parameter.name}=${value}`, what, baseBody());
        numericProbes += 1;
        if (status !== 400 || !text.includes('VALIDATION_FAILED'))
          numericNot400.push(`${entry.operationId} ${what}: ${status} ${text.slice(0, 120)}`);
      }
    }
    if (rawBodyOperation) {
      for (const value of HOSTILE_STRINGS)
        await send(entry, pathWith({}), `raw body ${JSON.stringify(value)}`, { note: value, [value]: 1 });
      await send(entry, pathWith({}), 'a body of raw bytes with NUL', 'raw\u0000bytes, not JSON');
    }
    if (bodySchema) {
      for (const leaf of stringLeaves(bodySchema)) {
        for (const value of HOSTILE_STRINGS) {
          const body = withValueAt(baseBody(), leaf, value, bodySchema, world);
          await send(entry, pathWith({}), `body /${leaf.join('/')}=${JSON.stringify(value)}`, body);
        }
      }
    }
  }
  t.same(serverErrors, [], `${probes} probes, no 5xx`);
  t.ok(numericProbes >= 10 * HOSTILE_NUMBERS.length, `${numericProbes} numeric query probes`);
  t.same(
    numericNot400,
    [],
    'every malformed or out-of-range number in a numeric query parameter answers 400 VALIDATION_FAILED',
  );
  return { api, baseUrl, token, account, terminal, clock, world };
}

/** What is accepted reads back equal: a field of each kind, through the API. */
async function readsBackEqual(t: Test, probe: Awaited<ReturnType<typeof probeEverything>>, store: string) {
  const { api, baseUrl, token, account, terminal, clock } = probe;
  const text = 'nul\u0000 lone\ud800 low\udc00 soh\u0001 pair😀 \\u0000 end';
  const agreement = await api.post('/api/v1/ext/agreements', {
    json: { name: text, currency_reference: 'USD', split: false, payment_methods: ['transfer'] },
    token,
  });
  t.equal(agreement.status, 201, `${store}: agreement accepted`);
  t.equal(agreement.body.name, text);
  t.equal(
    (await api.get(`/api/v1/ext/agreements/${agreement.body.agreement_id}`, { token })).body?.name ?? text,
    text,
    `${store}: agreement name reads back equal`,
  );
  const labelled = await api.post(`/api/v1/merchants/${account.merchant_id}/pos-terminals`, {
    json: { serialNumber: `LBL-${store}`, label: text },
    token,
  });
  t.equal(labelled.status, 201);
  const terminals = (await api.get(`/api/v1/merchants/${account.merchant_id}/pos-terminals`, { token })).body
    .data as Array<{ serialNumber: string; label: string }>;
  t.equal(
    terminals.find((each) => each.serialNumber === `LBL-${store}`)?.label,
    text,
    `${store}: terminal label reads back equal`,
  );
  const order = await api.post(`/api/v1/merchants/${account.merchant_id}/transactions`, {
    json: { terminal: terminal.serialNumber, amount: 5, currency: 'USD', description: text },
    token,
  });
  t.equal(order.status, 201);
  t.equal(
    (await api.get(`/api/v1/merchants/${account.merchant_id}/transactions/${order.body.data.orderId}`, { token })).body
      .data.description,
    text,
    `${store}: order description reads back equal`,
  );
  const session = await api.post('/api/v1/ext/payment-sessions/buttons', {
    json: { agreement_id: agreement.body.agreement_id, amount_reference: 3, description: text },
    token,
  });
  t.equal(session.status, 201);
  t.equal(
    (await api.get(`/api/v1/ext/payment-sessions/${session.body.session_id}`, { token })).body.description,
    text,
    `${store}: session description reads back equal`,
  );
  const url = `/api/v1/pos-terminals/${terminal.serialNumber}/settlements`;
  const settlement = {
    batchNumber: 'B\u0000\ud800',
    debitBatch: 'D\udc00',
    closedAt: new Date(clock.now()).toISOString(),
    transactionCount: 1,
    currencyReference: 'USD',
    terminal: terminal.serialNumber,
  };
  const raw = JSON.stringify(settlement);
  const sent = await fetch(`${baseUrl}${url}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...signPosRequest({ secret: terminal.secret, method: 'POST', url, body: raw, now: clock.now() + 999 }),
    },
    body: raw,
  });
  t.equal(sent.status, 200, `${store}: settlement accepted`);
  const listed = (
    await api.get(
      `/api/v1/merchants/${account.merchant_id}/pos-terminals/${terminal.serialNumber}/settlements?sort=-closedAt&size=5`,
      { token },
    )
  ).body as { data: Array<{ batchNumber: string; debitBatch: string }> };
  t.ok(
    listed.data.some(
      (each) => each.batchNumber === settlement.batchNumber && each.debitBatch === settlement.debitBatch,
    ),
    `${store}: settlement fields read back equal`,
  );
}

t.test('hostile text on the embedded store: no 5xx, and what is accepted reads back equal', async (t) => {
  const probe = await probeEverything(t, await EmbeddedStore.open({ dir: t.testdir() }));
  await readsBackEqual(t, probe, 'embedded');
});

t.test(
  'hostile text on PostgreSQL: no 5xx, and what is accepted reads back equal',
  { skip: postgresSkip() },
  async (t) => {
    const probe = await probeEverything(t, await PgStore.open({ connectionString: startPostgres(t) }), 'instances');
    await readsBackEqual(t, probe, 'postgres');
  },
);
