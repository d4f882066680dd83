import t, { type Test } from 'tap';
import { listOperations, openApiDocument } from '../../contracts/openapi.js';
import { signPosRequest } from '../../contracts/clients/pos-client.js';
import { ManualClock } from '../clock.js';
import { defaultConfig } from '../config.js';
import { EmbeddedStore } from '../store/embedded/embedded-store.js';
import { PgStore } from '../store/postgres/pg-store.js';
import { postgresSkip, startPostgres } from '../store/postgres/pg-testing.js';
import type { Store } from '../store/store.js';
import type { AppDeps } from '../app.js';
import { serveApp } from '../testing/test-server.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';

// A body nested 10,000 deep on every operation that takes a body, signed
// or authenticated as that operation needs, on both stores: 400, never 500;
// but the default receivers, which accept anything, answer their
// documented status and keep it raw.

const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

t.test('the depth scan counts brackets outside strings and stops past the limit', async (t) => {
  t.equal(nestsDeeperThan(deep(MAX_JSON_DEPTH)), false, `${MAX_JSON_DEPTH} levels pass`);
  t.equal(nestsDeeperThan(deep(MAX_JSON_DEPTH + 1)), true);
  t.equal(
    nestsDeeperThan(`{"a":"${'['.repeat(500)}\\"${'{'.repeat(500)}"}`),
    false,
    'brackets and escaped quotes inside strings do not count',
  );
  t.equal(nestsDeeperThan(`[${'[]'.repeat(10_000)}]`), false, 'width is not depth');
});

async function everyBodyRoute(t: Test, store: Store, sharing: AppDeps['sharing'] = 'one-process') {
  const clock = new ManualClock(Date.now());
  const { api, stop } = await serveApp({
    store,
    sharing,
    clock,
    config: { ...defaultConfig, scryptCost: 1024, logLevel: 'silent' },
  });
  t.teardown(stop);
  const account = (
    await api.post('/console/register', { json: { email: `deep-${store.kind}@example.com`, password: '12345678' } })
  ).body;
  const terminal = (
    await api.post(`/api/v1/merchants/${account.merchant_id}/pos-terminals`, {
      json: { serialNumber: `DEEP-${store.kind}` },
      token: account.key.token,
    })
  ).body;
  const known: Record<string, string> = {
    account_id: account.account_id,
    merchantId: account.merchant_id,
    serialNumber: terminal.serialNumber,
  };

  const body = deep(10_000);
  const operations = listOperations(openApiDocument).filter(
    (entry) => entry.operation.requestBody || (entry.operation as { 'x-raw-body'?: boolean })['x-raw-body'],
  );
  t.ok(operations.length >= 20, `${operations.length} operations take a body`);
  for (const entry of operations) {
    const url = entry.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
      encodeURIComponent(known[name] ?? (name === 'receiver' ? 'captura' : 'x1')),
    );
    const scheme = Object.keys((entry.operation.security ?? openApiDocument.security ?? [])[0] ?? {})[0];
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (scheme === 'apiBearer') headers.authorization = `Bearer ${account.key.token}`;
    if (scheme === 'consoleBearer') headers.authorization = `Bearer ${account.console_token}`;
    if (scheme === 'posSignature')
      Object.assign(
        headers,
        signPosRequest({ secret: terminal.secret, method: entry.method.toUpperCase(), url, body, now: clock.now() }),
      );
    const response = await api.request(entry.method.toUpperCase(), url, { raw: body, headers });
    const receiver = /\/console\/hooks\/[^/]+\/(paid|accredited|fail|captura)$/.exec(url)?.[1];
    if (receiver) {
      t.equal(
        response.status,
        receiver === 'fail' ? 500 : 200,
        `${entry.operationId}: the receiver's own answer, whatever the body`,
      );
      continue;
    }
    t.equal(
      response.status,
      400,
      `${entry.operationId} (${entry.method.toUpperCase()} ${url}): ${response.status} ${response.body?.code ?? ''}`,
    );
    t.equal(response.body?.code, 'VALIDATION_FAILED');
  }
}

t.test('every body-taking route refuses 10,000-deep nesting with 400 on the embedded store', async (t) => {
  await everyBodyRoute(t, await EmbeddedStore.open({ dir: t.testdir() }));
});

t.test(
  'every body-taking route refuses 10,000-deep nesting with 400 on PostgreSQL',
  { skip: postgresSkip() },
  async (t) => {
    await everyBodyRoute(t, await PgStore.open({ connectionString: startPostgres(t) }), 'instances');
  },
);
