import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Store, Transaction } from '../store/store.js';
import type { DirectResult } from './direct-transport.js';
import type { LadderName } from './ladder.js';
import type { WebhookRequest, WebhookTransport } from './transport.js';

// What the webhook dispatcher is given (its ports and settings), and what
// one attempt answers.

export interface DispatcherDeps {
  store: Store;
  clock: Clock;
  ladder: LadderName;
  /** Origins the simulator is reached at, for loopback routing. */
  ownOrigins: () => string[];
  /**
   * An in-process delivery to the account's default receiver: its status,
   * and the receipt to write in the attempt's own transaction.
   */
  loopback: (
    accountId: string,
    receiver: 'paid' | 'accredited' | 'fail' | 'captura',
    request: WebhookRequest,
  ) => { status: number; body: string; record: (tx: Transaction) => Promise<unknown> };
  relay: WebhookTransport;
  direct?: (request: WebhookRequest) => Promise<DirectResult>;
  log: Logger;
  /** The attempt's time limit as a signal; injectable so tests need not wait 5 s. */
  signalAfter?: (ms: number) => AbortSignal;
  /** Deliveries of different sessions attempted at once. */
  concurrency?: number;
  /** Attempts started per second at most (real time); unlimited when absent. */
  maxPerSecond?: number;
  /** How long this instance holds a delivery it attempts (instances sharing a database). */
  leaseMs?: number;
  /** This instance, named in its attempts' trace entries when several share a database. */
  instance?: string;
}

export interface AttemptOutcome {
  event_id: string;
  attempt: number;
  routing: 'loopback' | 'relay' | 'direct' | 'none';
  /** Where it went: the session's webhook_url, or the URL a manual resend named. */
  url: string | null;
  status?: number;
  /** The start of the receiver's answer (2 KiB at most). */
  response_body?: string;
  error?: string;
  duration_ms: number;
}
