// Starts the server on the real parts: the environment's configuration, the
// embedded store in DATA_DIR, the system clock. `npm start` runs this.
import { createApp } from './app.js';
import { systemClock } from './clock.js';
import { ConfigError, loadConfig } from './config.js';
import { StoreCorruptError, StoreLockedError } from './errors.js';
import { serve } from './http/serve.js';
import { createLogger } from './log.js';
import { EmbeddedStore } from './store/embedded-store.js';
import { PgStore } from './store/pg-store.js';
import type { Store } from './store/store.js';

function fail(message: string): never {
  process.stderr.write(`svc-pos-sim: ${message}\n`);
  process.exit(1);
}

let config;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (error instanceof ConfigError) fail(error.message);
  throw error;
}
const log = createLogger(config.logLevel);

let store: Store;
try {
  store = config.databaseUrl
    ? await PgStore.open({ connectionString: config.databaseUrl, log })
    : await EmbeddedStore.open({ dir: config.dataDir, snapshotMinJournalBytes: config.snapshotMinJournalBytes, log });
} catch (error) {
  if (error instanceof StoreLockedError) fail(error.message);
  if (error instanceof StoreCorruptError) {
    fail(
      `${error.message}\n  'npm run store:check -- ${config.dataDir}' lists every damaged line; 'npm run store:repair -- ${config.dataDir}' cuts them out, keeping a backup, and says what that loses`,
    );
  }
  if (config.databaseUrl) fail(`cannot use DATABASE_URL: ${(error as Error).message}`);
  throw error;
}

// On a database, several instances may serve together: what they must agree on lives in it.
const app = createApp({
  store,
  sharing: config.databaseUrl ? 'instances' : 'one-process',
  clock: systemClock,
  config,
  log,
});
app.jobs.scheduler.start();
const { server, baseUrl } = await serve(app, {
  host: config.host,
  port: config.port,
  onError: (error) => fail(`cannot listen on ${config.host}:${config.port}: ${error.code ?? error.message}`),
});
app.jobs.dispatcher.start();
// Test data past its lifetime goes hourly (and at every clock advance, per account).
const purgeTimer = setInterval(() => {
  app.jobs.purge().catch((error: Error) => log.error('purge failed', { error: error.message }));
}, 3_600_000);
purgeTimer.unref();
log.info('listening', { url: baseUrl, store: store.kind });
process.stdout.write(
  `svc-pos-sim listening on ${baseUrl} (${config.databaseUrl ? 'data in PostgreSQL' : `data in ${config.dataDir}`})\n`,
);

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info('stopping', { signal });
  app.jobs.scheduler.stop();
  app.jobs.relay.close();
  app.jobs.consoleStreams.close();
  // Let requests in flight finish (their writes are acknowledged), then stop.
  const closed = new Promise((resolve) => server.close(resolve));
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), 5000);
  await closed;
  clearTimeout(force);
  // Attempts in flight are recorded before the store closes (relayed ones have already failed with the relay closed).
  await app.jobs.dispatcher.stop();
  await store.close();
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
