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
  const min = options.minBackoffMs ?? 500;
  const max = options.maxBackoffMs ?? 30_000;
  const base = new URL('/relay', options.baseUrl);
  base.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
  const cursor = new RelayCursor(options.cursor?.position ?? null, options.cursor?.save);
  // Where to start: after the kept cursor; a first connection's backfill; or only what comes from now.
  const relayUrl = () => {
    const url = new URL(base);
    if (cursor.position !== null) url.searchParams.set('cursor', String(cursor.position));
    else if (options.backfillMs) url.searchParams.set('backfill_ms', String(options.backfillMs));
    return url;
  };
  const heartbeatMs = options.heartbeatMs ?? 10_000;
  const local = localForwarder(options.forwardTo);
  let stopped = false;
  let socket: WebSocket | null = null;
  let backoff = min;
  let retry: NodeJS.Timeout | null = null;
  let markConnected!: () => void;
  let finish!: (value: { reason: string }) => void;
  const connected = new Promise<void>((resolve) => (markConnected = resolve));
  const finished = new Promise<{ reason: string }>((resolve) => (finish = resolve));
  const end = (reason: string) => {
    if (stopped) return;
    stopped = true;
    if (retry) clearTimeout(retry);
    socket?.close(1000);
    local.close();
    finish({ reason });
  };

  const connect = () => {
    // A handshake into a network that is gone never ends by itself: it is given up, and tried again.
    const current = new WebSocket(relayUrl(), {
      headers: { authorization: `Bearer ${options.token}` },
      handshakeTimeout: Math.max(2 * heartbeatMs, 2000),
    });
    socket = current;
    let alive = true;
    let beat: NodeJS.Timeout | null = null;
    current.on('pong', () => (alive = true));
    current.on('open', () => {
      backoff = min;
      options.log(`relay connected to ${base.origin}, forwarding to ${options.forwardTo}`);
      markConnected();
      // A link that stops answering (the network gone without a close) is ended here, and reconnected.
      beat = setInterval(() => {
        if (!alive) {
          options.log(`relay link silent for ${heartbeatMs} ms; reconnecting`);
          current.terminate();
          return;
        }
        alive = false;
        current.ping();
      }, heartbeatMs);
    });
    current.on('close', () => {
      if (beat) clearInterval(beat);
    });
    socket.on('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk));
      response.on('end', () => {
        const message = safeMessage(text) ?? `HTTP ${response.statusCode}`;
        if (response.statusCode === 401) {
          options.log(`relay refused: ${message}`);
          end(`refused: ${message}`);
        } else {
          options.log(`relay upgrade failed (${response.statusCode}): ${message}; retrying`);
          schedule();
        }
      });
    });
    socket.on('message', (data) => {
      let message: WebhookMessage | ResumeMessage;
      try {
        message = JSON.parse(String(data)) as WebhookMessage | ResumeMessage;
      } catch {
        return;
      }
      if (message.type === 'webhook') void forward(message);
      else if (message.type === 'resume') resumed(message);
    });
    socket.on('close', (code, reason) => {
      if (stopped) return;
      if (code === 4000) {
        options.log(`relay replaced by a newer one for the same key (${reason.toString() || 'code 4000'}); stopping`);
        end('replaced');
        return;
      }
      options.log(`relay disconnected (code ${code}); reconnecting in ${backoff} ms`);
      schedule();
    });
    socket.on('error', (error) => {
      if (!stopped && socket?.readyState !== WebSocket.OPEN) options.log(`relay connection failed: ${error.message}`);
    });
  };

  const schedule = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = null;
      connect();
    }, backoff);
    backoff = Math.min(max, backoff * 2);
  };

  const resumed = (message: ResumeMessage) => {
    cursor.resumed(message);
    const count = message.resending.length;
    if (count > 0)
      options.log(
        `resuming ${count} missed deliver${count === 1 ? 'y' : 'ies'}, first routed at ${message.from} (cursor ${message.cursor})`,
      );
    else options.log(`nothing missed (cursor ${message.cursor})`);
    if (message.left_out > 0)
      options.log(
        `  ${message.left_out} more missed deliveries were left out: the backfill resends ${count} at most; see them in the console's trace`,
      );
  };

  const forward = async (message: WebhookMessage) => {
    const started = performance.now();
    const result = await local.forward(message.headers, message.body);
    // The local receiver could not be reached: the simulator counts it as a failed attempt.
    const status = 'status' in result ? result.status : 502;
    const what = `${eventType(message.body)} ${message.event_id}`;
    if ('error' in result) options.log(`  ${what}: local receiver unreachable: ${result.error}`);
    options.log(
      `${new Date().toISOString()} ${what}${message.resumed ? ' (resumed)' : ''} → POST ${options.forwardTo}: ${status} (${Math.round(performance.now() - started)} ms)`,
    );
    if (message.position !== undefined) cursor.answered(message.position, status);
    // `error` says why there was no answer; a simulator that does not read it still sees the 502.
    socket?.send(
      JSON.stringify({
        type: 'result',
        delivery_id: message.delivery_id,
        status,
        ...('error' in result ? { error: `local receiver unreachable: ${result.error}` } : { body: result.body }),
      }),
    );
  };

  connect();
  return { connected, finished, stop: () => end('stopped') };
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
