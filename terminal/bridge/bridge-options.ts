import type { Duplex } from 'node:stream';
import type { PosClient } from '../../contracts/clients/pos-client.js';
import type { Timers } from '../protocol/timers.js';
import type { BridgeState } from './bridge-state.js';
import { RecordCourier } from './courier.js';

/** A serial port stream; a real one must be closed (not just destroyed) to release its lock. */
export type SerialLine = Duplex & { close?: (callback: (error?: Error | null) => void) => void; isOpen?: boolean };

/** What every bridge takes, whatever its device's dialect. */
export interface CommonBridgeOptions {
  /** Opens the serial line (a real port, a pseudo-terminal, a mock). */
  open: () => Promise<SerialLine>;
  client: PosClient;
  /** What must survive a restart: asks, held entries, the close asked for. */
  state: BridgeState;
  /** Where the server is, for log lines. */
  serverUrl?: string;
  timers?: Timers;
  /** Time to wait for the device's answer to a request. */
  answerTimeoutMs?: number;
  /** Between two cycles. */
  pollMs?: number;
  /** Reopening the serial line: from this, doubling up to maxBackoffMs. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Retrying a server that failed: from this, doubling up to serverMaxBackoffMs. */
  serverMinBackoffMs?: number;
  serverMaxBackoffMs?: number;
  /** How long a record may keep getting 5xx answers before it is held (default 10 min). */
  recordFaultHoldMs?: number;
  log?: (line: string) => void;
  /** Errors: records held, operator decisions. Defaults to `log`. */
  error?: (line: string) => void;
  debug?: (line: string) => void;
}

/** The defaults both dialects share: a cycle a second, the line reopened from 0.5 s to 10 s, the server retried from 1 s to 30 s. */
export const COMMON_DEFAULTS = {
  pollMs: 1000,
  minBackoffMs: 500,
  maxBackoffMs: 10_000,
  serverMinBackoffMs: 1000,
  serverMaxBackoffMs: 30_000,
  /** A record the server keeps answering 5xx (while it answers): held for an operator after this long. */
  recordFaultHoldMs: 10 * 60_000,
};

export function courierOf(
  options: CommonBridgeOptions,
  parts: { timers: Timers; log: (line: string) => void; error: (line: string) => void; keptOn: 'device' | 'journal' },
): RecordCourier {
  return new RecordCourier({
    client: options.client,
    state: options.state,
    ...parts,
    ...(options.serverUrl ? { serverUrl: options.serverUrl } : {}),
    serverMinBackoffMs: options.serverMinBackoffMs ?? COMMON_DEFAULTS.serverMinBackoffMs,
    serverMaxBackoffMs: options.serverMaxBackoffMs ?? COMMON_DEFAULTS.serverMaxBackoffMs,
    recordFaultHoldMs: options.recordFaultHoldMs ?? COMMON_DEFAULTS.recordFaultHoldMs,
  });
}
