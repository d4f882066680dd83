import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Account } from '../accounts/account.js';
import type { AccountService } from '../accounts/account-service.js';
import { accountNow, iso, type Clock } from '../clock.js';
import { AppError, appError } from '../errors.js';
import { bearerToken } from '../http/authenticate.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import type { AttemptResult, WebhookRequest, WebhookTransport } from '../webhooks/transport.js';
import { ATTEMPT_TIMEOUT_MS } from '../webhooks/ladder.js';
import { RelayLink, type LocalRelays } from './relay-link.js';
import type { ResumeMessage, WebhookMessage } from '../../contracts/relay-messages.js';
import { relayPosition } from './relay-positions.js';
import { refuse, relayResult, relayStart, type RelayStart } from './relay-start.js';
import { recordRelayEvent, type RelayRecording } from './relay-events.js';

/** Close code for a relay replaced by a newer one for the same key (INTERFACE.md §8). */
export const REPLACED = 4000;

interface Connection {
  socket: WebSocket;
  account: Account;
  pending: Map<string, (result: AttemptResult) => void>;
  /** Whether a pong came since the last ping: a link that stops answering is closed at the next beat. */
  alive: boolean;
  /** When it last answered a ping (real time). */
  lastSeen: number;
}

/** Called once a relay is connected: resumes what it missed (relay-resume.ts). */
export type OnRelayConnected = (
  account: Account,
  start: RelayStart,
  send: (message: ResumeMessage) => void,
) => Promise<void>;

/** How often the server pings each relay; one that misses a beat is closed, so a dead link is noticed within two. */
export const DEFAULT_HEARTBEAT_MS = 10_000;

export interface RelayHubOptions {
  accounts: AccountService;
  store: Store;
  clock: Clock;
  log: Logger;
  /** This instance's id when several share the database: deliveries cross between them through the link. */
  instance?: string | undefined;
  heartbeatMs?: number;
}

/**
 * The WebSocket relay at /relay (INTERFACE.md §8): a local
 * client connects with its API or login token and receives the account's
 * deliveries routed to it, answering each with the local receiver's status.
 * One relay per key: a second connection closes the first with code 4000.
 * A console token or an unknown token is refused with HTTP 401 at the
 * upgrade, before any WebSocket exists. With several instances on one
 * database (`instance` given), deliveries another instance claims reach
 * the relay connected here through the link, and the other way round.
 */
export class RelayHub implements WebhookTransport, LocalRelays {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  private readonly connections = new Map<string, Connection>();
  private nextDelivery = 0;
  private readonly link: RelayLink | null;
  private onConnected: OnRelayConnected | null = null;
  private readonly heartbeat: NodeJS.Timeout;

  private readonly accounts: AccountService;
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly log: Logger;
  /** Where relay events are written: the account's trace and its relay state. */
  private readonly recording: RelayRecording;

  constructor({ accounts, store, clock, log, instance, heartbeatMs = DEFAULT_HEARTBEAT_MS }: RelayHubOptions) {
    this.accounts = accounts;
    this.store = store;
    this.clock = clock;
    this.log = log;
    this.recording = { store, clock, log };
    this.link = instance ? new RelayLink(store, instance, this, log) : null;
    this.heartbeat = setInterval(() => this.beat(), heartbeatMs);
    this.heartbeat.unref();
  }

  /** What runs once a relay connects (the app wires the resume here; the hub does not know the dispatcher). */
  whenConnected(handler: OnRelayConnected): void {
    this.onConnected = handler;
  }

  /**
   * Pings every relay; one that did not answer the last ping is gone (the
   * network dropped without a close): it is terminated at once, so nothing
   * more is routed into it, and its client reconnects and resumes.
   */
  private beat(): void {
    for (const connection of this.connections.values()) {
      if (!connection.alive) {
        this.log.info('relay stopped answering pings; closing it', { account_id: connection.account.account_id });
        connection.socket.terminate();
        continue;
      }
      connection.alive = false;
      connection.socket.ping();
    }
  }

  /** Resolves once deliveries from other instances can reach the relays connected here. */
  ready(): Promise<void> {
    return this.link?.start() ?? Promise.resolve();
  }

  /** Takes the HTTP server's upgrade requests for /relay. */
  attach(server: Server): void {
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      void this.upgrade(request, socket, head);
    });
  }

  isConnected(accountId: string): boolean {
    return this.connections.has(accountId);
  }

  /** How long ago the account's relay connected here last answered a ping; null when it is not connected here. */
  silentForMs(accountId: string): number | null {
    const connection = this.connections.get(accountId);
    return connection ? Date.now() - connection.lastSeen : null;
  }

  async send(request: WebhookRequest): Promise<AttemptResult> {
    // Its place in the account's relay sequence, given even when no relay is connected: what a client missed is found by it.
    let position: number;
    try {
      position = await relayPosition(this.store, this.clock, request.account_id, request.event_id);
    } catch (error) {
      return { error: `could not record the relay position: ${(error as Error).message}` };
    }
    return this.sendUnplaced({ ...request, position });
  }

  /** A request through the relay that is no delivery of an event (the receiver grader's): no position, nothing to resume. */
  async sendUnplaced(request: WebhookRequest & { position?: number }): Promise<AttemptResult> {
    return this.sendLocal(request) ?? this.link?.send(request) ?? { error: 'no relay connected for this account' };
  }

  sendLocal(request: WebhookRequest & { position?: number }): Promise<AttemptResult> | null {
    const connection = this.connections.get(request.account_id);
    if (!connection) return null;
    const delivery_id = `dlv_${++this.nextDelivery}`;
    return new Promise<AttemptResult>((resolve) => {
      const done = (result: AttemptResult) => {
        connection.pending.delete(delivery_id);
        request.signal.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const onAbort = () => done({ error: `timed out after ${ATTEMPT_TIMEOUT_MS} ms waiting for the relay` });
      if (request.signal.aborted) return onAbort();
      request.signal.addEventListener('abort', onAbort);
      connection.pending.set(delivery_id, done);
      const message: WebhookMessage = {
        type: 'webhook',
        delivery_id,
        event_id: request.event_id,
        ...(request.position !== undefined ? { position: request.position } : {}),
        ...(request.resumed ? { resumed: true } : {}),
        url: request.url,
        headers: request.headers,
        body: request.body,
      };
      connection.socket.send(JSON.stringify(message), (error) => {
        if (error) done({ error: `relay send failed: ${error.message}` });
      });
    });
  }

  connectionOf(accountId: string): object | undefined {
    return this.connections.get(accountId);
  }

  replacedElsewhere(accountId: string, connection: object): void {
    const current = this.connections.get(accountId);
    if (current === connection) current.socket.close(REPLACED, 'replaced by a newer relay for the same key');
  }

  close(): void {
    clearInterval(this.heartbeat);
    for (const connection of this.connections.values()) connection.socket.terminate();
    this.wss.close();
  }

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://relay.invalid');
    if (url.pathname !== '/relay')
      return refuse(socket, 404, { message: `no WebSocket endpoint at ${url.pathname}`, code: 'NOT_FOUND' });
    const token = bearerToken(request.headers.authorization ?? '') ?? url.searchParams.get('token');
    const start = relayStart(url.searchParams);
    if ('error' in start) return refuse(socket, 400, { message: start.error, code: 'VALIDATION_FAILED' });
    let account: Account;
    try {
      if (!token) throw appError('INVALID_TOKEN', 'send the API token as Authorization: Bearer <token> or ?token=');
      ({ account } = await this.accounts.authenticate(token, ['api', 'login']));
    } catch (error) {
      const refusal = error instanceof AppError ? error : appError('INVALID_TOKEN', 'the token was not accepted');
      return refuse(socket, refusal.status, refusal.toBody());
    }
    try {
      await this.link?.claim(account.account_id, iso(accountNow(this.clock, account)));
    } catch (error) {
      this.log.warn('could not record where a relay is connected', {
        account_id: account.account_id,
        error: (error as Error).message,
      });
      return refuse(socket, 503, {
        message: 'the relay could not be registered; try again',
        code: 'STORE_UNAVAILABLE',
      });
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => this.connected(ws, account, start.start));
  }

  private connected(socket: WebSocket, account: Account, start: RelayStart): void {
    const previous = this.connections.get(account.account_id);
    const connection: Connection = {
      socket,
      account,
      pending: new Map(),
      alive: true,
      lastSeen: Date.now(),
    };
    this.connections.set(account.account_id, connection);
    socket.on('pong', () => {
      connection.alive = true;
      connection.lastSeen = Date.now();
    });
    if (previous) previous.socket.close(REPLACED, 'replaced by a newer relay for the same key');
    void recordRelayEvent(
      this.recording,
      account,
      'relay.connected',
      {
        replaced_previous: Boolean(previous),
        ...(start && 'cursor' in start ? { cursor: start.cursor } : {}),
        ...(start && 'backfillMs' in start ? { backfill_ms: start.backfillMs } : {}),
      },
      (at) => () => ({
        connected: true,
        connected_since: at,
        cursor: start && 'cursor' in start ? start.cursor : null,
        closed_at: null,
        close_code: null,
      }),
    );
    const send = (message: ResumeMessage) => socket.send(JSON.stringify(message));
    this.onConnected?.(account, start, send).catch((error: Error) =>
      this.log.warn('could not resume a relay', { account_id: account.account_id, error: error.message }),
    );
    this.link?.announce(account.account_id).catch((error: Error) => {
      this.log.warn('could not tell the other instances of a relay', {
        account_id: account.account_id,
        error: error.message,
      });
    });

    socket.on('message', (data) => {
      const result = relayResult(String(data));
      if (result) connection.pending.get(result.deliveryId)?.(result.attempt);
    });
    socket.on('close', (code) => {
      connection.alive = false;
      for (const settle of connection.pending.values()) settle({ error: 'the relay disconnected' });
      const current = this.connections.get(account.account_id) === connection;
      if (current) {
        this.connections.delete(account.account_id);
        this.link?.disconnected(account.account_id).catch(() => undefined); // a stale route only costs a timed-out attempt
      }
      // A relay replaced by a newer one leaves the state to the newer one.
      void recordRelayEvent(
        this.recording,
        account,
        'relay.closed',
        { code },
        current ? (at) => () => ({ connected: false, closed_at: at, close_code: code }) : undefined,
      );
    });
    socket.on('error', (error) =>
      this.log.warn('relay socket error', { account_id: account.account_id, error: error.message }),
    );
  }
}
