#!/usr/bin/env node
// Starts the server on the real parts: the environment's configuration, the
// embedded store in DATA_DIR, the system clock. `npm start` runs this.
import { onStopRequest } from '../contracts/cli/stop-signals.js';
import { versionLine } from '../contracts/cli/version.js';
import { createApp } from './app.js';
import { systemClock } from './clock.js';
import { loadConfig } from './config.js';
import { isAppError } from './errors.js';
import { startApp } from './http/lifecycle.js';
import { createLogger } from './log.js';
import { EmbeddedStore } from './store/embedded/embedded-store.js';
import { PgStore } from './store/postgres/pg-store.js';
import type { Store } from './store/store.js';

function fail(message: string): never {
  process.stderr.write(`svc-pos-sim: ${message}\n`);
  process.exit(1);
}

const usage = `usage: svc-pos-sim   (in a checkout: npm start)

Serves the simulator: the API, the console, the payment page, the relay.
It takes no arguments; the environment configures it (README.md,
"Configuration"): PORT (3000), HOST (127.0.0.1), DATA_DIR (./data, the
embedded store), DATABASE_URL (PostgreSQL instead), LOG_LEVEL, and the
SIM_* and WEBHOOK_* settings. Ctrl-C (or SIGTERM) stops it once the
requests in flight are answered.
`;
const [argument] = process.argv.slice(2);
if (argument === '--help' || argument === '-h') {
  process.stdout.write(usage);
  process.exit(0);
}
if (argument === '--version') {
  process.stdout.write(versionLine('svc-pos-sim'));
  process.exit(0);
}
if (argument !== undefined) {
  process.stderr.write(
    `svc-pos-sim: unexpected argument ${JSON.stringify(argument)}; the environment configures the server\n(svc-pos-sim --help says more)\n`,
  );
  process.exit(2);
}

let config;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (isAppError(error, 'CONFIG_INVALID')) fail(error.message);
  throw error;
}
const log = createLogger(config.logLevel);

let store: Store;
try {
  store = config.databaseUrl
    ? await PgStore.open({ connectionString: config.databaseUrl, log })
    : await EmbeddedStore.open({ dir: config.dataDir, snapshotMinJournalBytes: config.snapshotMinJournalBytes, log });
} catch (error) {
  if (isAppError(error, 'STORE_LOCKED')) fail(error.message);
  if (isAppError(error, 'STORE_CORRUPT')) {
    fail(
      `${error.message}\n  'svc-store check ${config.dataDir}' lists every damaged line; 'svc-store repair ${config.dataDir}' cuts them out, keeping a backup, and says what that loses (in a checkout: npm run store:check -- and npm run store:repair --)`,
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
const started = await startApp(app, store, {
  host: config.host,
  port: config.port,
  onPurgeError: (error) => log.error('purge failed', { error: error.message }),
  onError: (error) =>
    fail(
      `cannot listen on ${config.host}:${config.port}: ${error.code === 'EADDRINUSE' ? 'the port is in use (another server, npm start or npm run demo?); set PORT to another' : (error.code ?? error.message)}`,
    ),
});
const { baseUrl } = started;
log.info('listening', { url: baseUrl, store: store.kind });
process.stdout.write(
  `svc-pos-sim listening on ${baseUrl} (${config.databaseUrl ? 'data in PostgreSQL' : `data in ${config.dataDir}`})\n`,
);

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info('stopping', { signal });
  // Requests in flight finish (their writes are acknowledged), deliveries in flight are recorded, then the store closes.
  await started.stop();
  // The last line says it is over: whoever reads the log knows the stop finished, not just began.
  log.info('stopped', { signal });
  process.exit(0);
}
onStopRequest((why) => void stop(why));
