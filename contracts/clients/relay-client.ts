import { WebSocket } from 'ws';
import { localForwarder } from './local-forward.js';
import type { ResumeMessage, WebhookMessage } from '../relay-messages.js';
import { RelayCursor } from './relay-cursor.js';

export interface RelayClientOptions {
  /** The simulator, e.g. http://127.0.0.1:3000 (ws:// or wss:// is derived). */
  baseUrl: string;
  /** An API or login token (not the console token). */
  token: string;
  /** The local receiver every delivery is POSTed to. */
  forwardTo: string;
  /** One line per delivery and per connection change. */
  log: (line: string) => void;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** The cursor kept from an earlier run (null: a first connection), and where to keep it as it moves. */
  cursor?: { position: number | null; save: (position: number) => void };
  /** A first connection (no cursor) asks for what was missed over this long (at most 24 h). */
  backfillMs?: number;
  /** How often the client pings the server; a server that misses a beat is taken for gone (a dead link noticed within two). */
  heartbeatMs?: number;
}

export interface RelayClient {
  /** Resolves on the first successful connection. */
  connected: Promise<void>;
  /** Resolves when the client stops for good (stop(), refused token, replaced by another relay). */
  finished: Promise<{ reason: string }>;
  stop(): void;
}

/**
 * The local end of the relay (INTERFACE.md §8): keeps an
 * outgoing WebSocket to the simulator, POSTs each delivery's exact body
 * bytes and headers to the local receiver, and reports the receiver's
 * status back. Reconnects with backoff after a drop; stops when the token
 * is refused or a newer relay for the same key replaces it (code 4000).
 */
export function startRelayClient(options: RelayClientOptions): RelayClient {
  const link = new RelayLinkClient(options);
  link.connect();
  return { connected: link.connected, finished: link.finished, stop: () => link.end('stopped') };
}

/**
 * Where the link stands: connecting (a handshake under way), open, waiting
 * to try again (after a drop or a failed upgrade, with its backoff), or
 * stopped for good, with why.
 */
type LinkState =
  | { name: 'connecting'; socket: WebSocket }
  | { name: 'open'; socket: WebSocket; beat: NodeJS.Timeout }
  | { name: 'waiting'; retry: NodeJS.Timeout }
  | { name: 'stopped'; reason: string };

class RelayLinkClient {
  private state: LinkState | null = null;
  private readonly min: number;
  private readonly max: number;
  private backoff: number;
  private readonly base: URL;
  private readonly cursor: RelayCursor;
  private readonly heartbeatMs: number;
  private readonly local: ReturnType<typeof localForwarder>;
  private markConnected!: () => void;
  private finish!: (value: { reason: string }) => void;
  readonly connected = new Promise<void>((resolve) => (this.markConnected = resolve));
  readonly finished = new Promise<{ reason: string }>((resolve) => (this.finish = resolve));

  constructor(private readonly options: RelayClientOptions) {
    this.min = options.minBackoffMs ?? 500;
    this.max = options.maxBackoffMs ?? 30_000;
    this.backoff = this.min;
    this.base = new URL('/relay', options.baseUrl);
    this.base.protocol = this.base.protocol === 'https:' ? 'wss:' : 'ws:';
    this.cursor = new RelayCursor(options.cursor?.position ?? null, options.cursor?.save);
    this.heartbeatMs = options.heartbeatMs ?? 10_000;
    this.local = localForwarder(options.forwardTo);
  }

  private get stopped(): boolean {
    return this.state?.name === 'stopped';
  }

  /** The socket of the current connection, open or not; none while waiting or stopped. */
  private get socket(): WebSocket | null {
    return this.state && 'socket' in this.state ? this.state.socket : null;
  }

  /** Where to start: after the kept cursor; a first connection's backfill; or only what comes from now. */
  private relayUrl(): URL {
    const url = new URL(this.base);
    if (this.cursor.position !== null) url.searchParams.set('cursor', String(this.cursor.position));
    else if (this.options.backfillMs) url.searchParams.set('backfill_ms', String(this.options.backfillMs));
    return url;
  }

  end(reason: string): void {
    if (this.stopped) return;
    const state = this.state;
    this.state = { name: 'stopped', reason };
    if (state?.name === 'waiting') clearTimeout(state.retry);
    if (state?.name === 'open') clearInterval(state.beat);
    if (state && 'socket' in state) state.socket.close(1000);
    this.local.close();
    this.finish({ reason });
  }

  connect(): void {
    // A handshake into a network that is gone never ends by itself: it is given up, and tried again.
    const socket = new WebSocket(this.relayUrl(), {
      headers: { authorization: `Bearer ${this.options.token}` },
      handshakeTimeout: Math.max(2 * this.heartbeatMs, 2000),
    });
    this.state = { name: 'connecting', socket };
    let alive = true;
    socket.on('pong', () => (alive = true));
    socket.on('open', () => {
      this.backoff = this.min;
      this.options.log(`relay connected to ${this.base.origin}, forwarding to ${this.options.forwardTo}`);
      this.markConnected();
      // A link that stops answering (the network gone without a close) is ended here, and reconnected.
      const beat = setInterval(() => {
        if (!alive) {
          this.options.log(`relay link silent for ${this.heartbeatMs} ms; reconnecting`);
          socket.terminate();
          return;
        }
        alive = false;
        socket.ping();
      }, this.heartbeatMs);
      if (this.socket === socket) this.state = { name: 'open', socket, beat };
      else clearInterval(beat);
    });
    socket.on('unexpected-response', (_request, response) => this.upgradeRefused(response));
    socket.on('message', (data) => this.received(String(data)));
    socket.on('close', (code, reason) => this.closed(socket, code, reason.toString()));
    socket.on('error', (error) => {
      if (!this.stopped && socket.readyState !== WebSocket.OPEN)
        this.options.log(`relay connection failed: ${error.message}`);
    });
  }

  /** The upgrade answered with HTTP: a refused token stops for good; anything else is tried again. */
  private upgradeRefused(response: import('node:http').IncomingMessage): void {
    let text = '';
    response.on('data', (chunk: Buffer) => (text += chunk));
    response.on('end', () => {
      const message = safeMessage(text) ?? `HTTP ${response.statusCode}`;
      if (response.statusCode === 401) {
        this.options.log(`relay refused: ${message}`);
        this.end(`refused: ${message}`);
      } else {
        this.options.log(`relay upgrade failed (${response.statusCode}): ${message}; retrying`);
        this.schedule();
      }
    });
  }

  private closed(socket: WebSocket, code: number, reason: string): void {
    if (this.state?.name === 'open' && this.state.socket === socket) clearInterval(this.state.beat);
    if (this.stopped) return;
    if (code === 4000) {
      this.options.log(`relay replaced by a newer one for the same key (${reason || 'code 4000'}); stopping`);
      this.end('replaced');
      return;
    }
    this.options.log(`relay disconnected (code ${code}); reconnecting in ${this.backoff} ms`);
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped || this.state?.name === 'waiting') return;
    const retry = setTimeout(() => this.connect(), this.backoff);
    this.state = { name: 'waiting', retry };
    this.backoff = Math.min(this.max, this.backoff * 2);
  }

  private received(text: string): void {
    let message: WebhookMessage | ResumeMessage;
    try {
      message = JSON.parse(text) as WebhookMessage | ResumeMessage;
    } catch {
      return;
    }
    if (message.type === 'webhook') void this.forward(message);
    else if (message.type === 'resume') this.resumed(message);
  }

  private resumed(message: ResumeMessage): void {
    this.cursor.resumed(message);
    const count = message.resending.length;
    if (count > 0)
      this.options.log(
        `resuming ${count} missed deliver${count === 1 ? 'y' : 'ies'}, first routed at ${message.from} (cursor ${message.cursor})`,
      );
    else this.options.log(`nothing missed (cursor ${message.cursor})`);
    if (message.left_out > 0)
      this.options.log(
        `  ${message.left_out} more missed deliveries were left out: the backfill resends ${count} at most; see them in the console's trace`,
      );
  }

  private async forward(message: WebhookMessage): Promise<void> {
    const started = performance.now();
    const result = await this.local.forward(message.headers, message.body);
    // The local receiver could not be reached: the simulator counts it as a failed attempt.
    const status = 'status' in result ? result.status : 502;
    const what = `${eventType(message.body)} ${message.event_id}`;
    if ('error' in result) this.options.log(`  ${what}: local receiver unreachable: ${result.error}`);
    this.options.log(
      `${new Date().toISOString()} ${what}${message.resumed ? ' (resumed)' : ''} → POST ${this.options.forwardTo}: ${status} (${Math.round(performance.now() - started)} ms)`,
    );
    if (message.position !== undefined) this.cursor.answered(message.position, status);
    // `error` says why there was no answer; a simulator that does not read it still sees the 502.
    this.socket?.send(
      JSON.stringify({
        type: 'result',
        delivery_id: message.delivery_id,
        status,
        ...('error' in result ? { error: `local receiver unreachable: ${result.error}` } : { body: result.body }),
      }),
    );
  }
}

/** The event's type (payment_session.paid …) from the delivery's body, as a person reads the log. */
function eventType(body: string): string {
  try {
    const event = (JSON.parse(body) as { event?: unknown }).event;
    return typeof event === 'string' ? event : 'event';
  } catch {
    return 'event';
  }
}

function safeMessage(text: string): string | null {
  try {
    return (JSON.parse(text) as { message?: string }).message ?? null;
  } catch {
    return null;
  }
}
