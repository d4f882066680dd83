import type { Server } from 'node:http';
import type { Test } from 'tap';
import { contractClient, validatingFetch, type ContractClient } from '../../contracts/testing/contract-client.js';
import { PosClient } from '../../contracts/clients/pos-client.js';
import { createApp, type AppDeps, type SimulatorApp } from '../app.js';
import { ManualClock } from '../clock.js';
import { defaultConfig, type Config } from '../config.js';
import { startApp } from '../http/lifecycle.js';
import type { Logger } from '../log.js';
import type { EventSink } from '../sessions/events.js';
import { EmbeddedStore } from '../store/embedded/embedded-store.js';

export interface TestServer {
  app: SimulatorApp;
  baseUrl: string;
  api: ContractClient;
  clock: ManualClock;
  store: EmbeddedStore;
  config: Config;
  server: Server;
}

/**
 * Serves an app built from `deps` on a random loopback port, with the relay
 * attached and its origin known. `stop` lets due deliveries finish, then
 * closes the relay, the server and the store.
 */
export async function serveApp(deps: AppDeps) {
  const app = createApp(deps);
  const { server, baseUrl, stop } = await startApp(app, deps.store, {
    host: '127.0.0.1',
    port: 0,
    jobs: 'by-hand',
    graceMs: 0,
  });
  return { app, server, baseUrl, api: contractClient(baseUrl), stop };
}

/**
 * The real app on real parts for a test: the embedded store in the test's temp
 * dir, HTTP on a random port, a manual clock. Closed when the test ends.
 */
export async function startTestServer(
  t: Test,
  overrides: Partial<Config> = {},
  log?: Logger,
  eventSink?: EventSink,
  signalAfter?: (ms: number) => AbortSignal,
): Promise<TestServer> {
  const dataDir = t.testdir();
  // A cheap scrypt cost keeps tests fast; the production cost is tested in secrets.test.ts.
  const config: Config = { ...defaultConfig, dataDir, port: 0, scryptCost: 1024, logLevel: 'silent', ...overrides };
  const store = await EmbeddedStore.open({ dir: dataDir, unindexedQueries: 'throw' });
  const clock = new ManualClock();
  const served = await serveApp({
    store,
    clock,
    config,
    ...(log ? { log } : {}),
    ...(eventSink ? { eventSink } : {}),
    ...(signalAfter ? { webhookSignalAfter: signalAfter } : {}),
  });
  t.teardown(served.stop);
  return { app: served.app, baseUrl: served.baseUrl, api: served.api, clock, store, config, server: served.server };
}

let counter = 0;
/** Registers a fresh account through the API and answers its registration. */
export async function registerAccount(api: ContractClient, overrides: Record<string, unknown> = {}) {
  counter += 1;
  const email = `user${counter}-${process.pid}@example.com`;
  const password = 'correct horse battery';
  const response = await api.post('/console/register', { json: { email, password, ...overrides } });
  if (response.status !== 201) throw new Error(`registration failed: ${response.status} ${response.text}`);
  return { ...response.body, email, password } as {
    account_id: string;
    merchant_id: string;
    key: { token: string; webhook_secret: string };
    console_token: string;
    hooks: Record<string, string>;
    email: string;
    password: string;
  };
}

/**
 * Signing times for a test terminal: the server's manual clock plus one
 * millisecond per request, as a real terminal's clock moves between two
 * requests (two identical requests signed in the same millisecond are, by
 * design, a replay).
 */
export function signingClock(server: TestServer): () => number {
  let requests = 0;
  return () => server.clock.now() + ++requests;
}

/** A registered merchant with one provisioned terminal and a signed client for it. */
export async function merchantWithTerminal(server: TestServer, serialNumber = `POS-${++counter}-${process.pid}`) {
  const account = await registerAccount(server.api);
  const provisioned = await server.api.post(`/api/v1/merchants/${account.merchant_id}/pos-terminals`, {
    json: { serialNumber, label: 'counter 1' },
    token: account.key.token,
  });
  if (provisioned.status !== 201) throw new Error(`provisioning failed: ${provisioned.status} ${provisioned.text}`);
  const secret = provisioned.body.secret as string;
  const pos = new PosClient({
    baseUrl: server.baseUrl,
    serialNumber,
    secret,
    now: signingClock(server),
    fetch: validatingFetch(),
  });
  const merchantPath = `/api/v1/merchants/${account.merchant_id}`;
  const createOrder = async (fields: Record<string, unknown> = {}) => {
    const created = await server.api.post(`${merchantPath}/transactions`, {
      json: { terminal: serialNumber, amount: 1500, currency: 'USD', ...fields },
      token: account.key.token,
    });
    if (created.status !== 201) throw new Error(`order creation failed: ${created.status} ${created.text}`);
    return created.body.data as { orderId: string; status: string };
  };
  return { account, serialNumber, secret, pos, merchantPath, createOrder };
}

/**
 * The real app on a given data directory and clock, for tests that stop a
 * server and start another on the same data. `stop` closes it for good.
 */
export async function bootOnDirectory(dir: string, clock: ManualClock) {
  const store = await EmbeddedStore.open({ dir, unindexedQueries: 'throw' });
  return {
    store,
    ...(await serveApp({
      store,
      clock,
      config: { ...defaultConfig, dataDir: dir, scryptCost: 1024, logLevel: 'silent' },
    })),
  };
}
