import { isLogLevel, type LogLevel } from './log.js';
import { appError } from './errors.js';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** When set, the server stores everything in PostgreSQL instead of DATA_DIR. */
  databaseUrl?: string;
  /** Origin the simulator is reached at (hook URLs, loopback routing). Derived from the request when unset. */
  publicUrl?: string;
  logLevel: LogLevel;
  bodyLimitBytes: number;
  loginTokenTtlSeconds: number;
  /** scrypt cost parameter N for password hashes. */
  scryptCost: number;
  /** Webhook attempts in flight at once (different sessions). */
  webhookConcurrency: number;
  /** At most this many webhook attempts start per second, so deliveries leave the API headroom. */
  webhookMaxPerSecond: number;
  /**
   * How long an instance holds a webhook delivery it is attempting; with
   * several instances on one database, another takes it over after this
   * if the holder died mid-attempt. Longer than an attempt's 5 s limit.
   */
  webhookLeaseMs: number;
  /** How often the relay pings each client; one that misses a beat is closed (a dead link noticed within two). */
  relayHeartbeatMs: number;
  /** Simulator data older than this on its account's clock is purged. */
  dataTtlDays: number;
  /** Which retry ladder webhook deliveries climb (INTERFACE.md §7). */
  webhookLadder: 'sim' | 'production';
  /** Delay between a payment through the page and its accreditation (leg 2). */
  accreditationDelayMs: number;
  /** How far x-pos-timestamp may be from the server clock (INTERFACE.md §2). */
  posSignatureToleranceSeconds: number;
  /** Journal bytes before the store compacts into a snapshot (at least). */
  snapshotMinJournalBytes: number;
  /** CSP frame-ancestors of the pages: who may frame the payment page. */
  frameAncestors: string;
}

export const defaultConfig: Config = {
  port: 3000,
  host: '127.0.0.1',
  dataDir: './data',
  logLevel: 'info',
  bodyLimitBytes: 1024 * 1024,
  loginTokenTtlSeconds: 3600,
  scryptCost: 16384,
  posSignatureToleranceSeconds: 300,
  accreditationDelayMs: 5000,
  webhookLadder: 'sim',
  dataTtlDays: 14,
  webhookConcurrency: 16,
  webhookMaxPerSecond: 1200,
  webhookLeaseMs: 15_000,
  relayHeartbeatMs: 10_000,
  snapshotMinJournalBytes: 16 * 1024 * 1024,
  frameAncestors: "'self'",
};

/** Reads the environment variables the README lists (Configuration); throws CONFIG_INVALID naming a bad one. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const config: Config = { ...defaultConfig };
  if (env.PORT !== undefined) config.port = integer('PORT', env.PORT, 0, 65535);
  if (env.HOST) config.host = env.HOST;
  if (env.DATA_DIR) config.dataDir = env.DATA_DIR;
  if (env.DATABASE_URL) {
    if (!/^postgres(ql)?:\/\//.test(env.DATABASE_URL))
      throw appError('CONFIG_INVALID', 'DATABASE_URL must be a postgres:// or postgresql:// connection string');
    config.databaseUrl = env.DATABASE_URL;
  }
  if (env.SIM_PUBLIC_URL) {
    try {
      config.publicUrl = new URL(env.SIM_PUBLIC_URL).origin;
    } catch {
      throw appError(
        'CONFIG_INVALID',
        `SIM_PUBLIC_URL must be an absolute URL, got ${JSON.stringify(env.SIM_PUBLIC_URL)}`,
      );
    }
  }
  if (env.POS_SIGNATURE_TOLERANCE_S !== undefined) {
    config.posSignatureToleranceSeconds = integer('POS_SIGNATURE_TOLERANCE_S', env.POS_SIGNATURE_TOLERANCE_S, 1, 86400);
  }
  if (env.SIM_ACCREDITATION_DELAY_MS !== undefined) {
    config.accreditationDelayMs = integer('SIM_ACCREDITATION_DELAY_MS', env.SIM_ACCREDITATION_DELAY_MS, 0, 86_400_000);
  }
  if (env.WEBHOOK_LADDER !== undefined) {
    if (env.WEBHOOK_LADDER !== 'sim' && env.WEBHOOK_LADDER !== 'production')
      throw appError(
        'CONFIG_INVALID',
        `WEBHOOK_LADDER must be sim or production, got ${JSON.stringify(env.WEBHOOK_LADDER)}`,
      );
    config.webhookLadder = env.WEBHOOK_LADDER;
  }
  if (env.WEBHOOK_CONCURRENCY !== undefined)
    config.webhookConcurrency = integer('WEBHOOK_CONCURRENCY', env.WEBHOOK_CONCURRENCY, 1, 256);
  if (env.WEBHOOK_MAX_PER_SECOND !== undefined)
    config.webhookMaxPerSecond = integer('WEBHOOK_MAX_PER_SECOND', env.WEBHOOK_MAX_PER_SECOND, 1, 1_000_000);
  if (env.WEBHOOK_LEASE_MS !== undefined)
    config.webhookLeaseMs = integer('WEBHOOK_LEASE_MS', env.WEBHOOK_LEASE_MS, 6000, 3_600_000);
  if (env.SIM_RELAY_HEARTBEAT_MS !== undefined)
    config.relayHeartbeatMs = integer('SIM_RELAY_HEARTBEAT_MS', env.SIM_RELAY_HEARTBEAT_MS, 100, 600_000);
  if (env.SIM_DATA_TTL_DAYS !== undefined)
    config.dataTtlDays = integer('SIM_DATA_TTL_DAYS', env.SIM_DATA_TTL_DAYS, 1, 36_500);
  if (env.SIM_FRAME_ANCESTORS !== undefined) {
    // A CSP source list: origins, schemes, 'self' or 'none', separated by spaces; nothing that could end the directive.
    if (!/^[A-Za-z0-9'*:/.-]+( [A-Za-z0-9'*:/.-]+)*$/.test(env.SIM_FRAME_ANCESTORS)) {
      throw appError(
        'CONFIG_INVALID',
        `SIM_FRAME_ANCESTORS must be a CSP source list such as "'self' https://shop.example", got ${JSON.stringify(env.SIM_FRAME_ANCESTORS)}`,
      );
    }
    config.frameAncestors = env.SIM_FRAME_ANCESTORS;
  }
  if (env.LOG_LEVEL !== undefined) {
    if (!isLogLevel(env.LOG_LEVEL))
      throw appError(
        'CONFIG_INVALID',
        `LOG_LEVEL must be one of debug, info, warn, error, silent; got ${JSON.stringify(env.LOG_LEVEL)}`,
      );
    config.logLevel = env.LOG_LEVEL;
  }
  return config;
}

function integer(name: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max)
    throw appError('CONFIG_INVALID', `${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return n;
}
