import { WebSocket } from 'ws';
import { localForwarder } from './local-forward.js';

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
}

export interface RelayClient {
  /** Resolves on the first successful connection. */
  connected: Promise<void>;
  /** Resolves when the client stops for good (stop(), refused token, replaced by another relay). */
  finished: Promise<{ reason: string }>;
  stop(): void;
}

interface WebhookMessage {
  type: 'webhook';
  delivery_id: string;
  event_id: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * The local end of the relay (spec: Simulator-only surfaces, 6): keeps an
 * outgoing WebSocket to the simulator, POSTs each delivery's exact body
 * bytes and headers to the local receiver, and reports the receiver's
 * status back. Reconnects with backoff after a drop; stops when the token
 * is refused or a newer relay for the same key replaces it (code 4000).
 */
export function startRelayClient(options: RelayClientOptions): RelayClient {
  const min = options.minBackoffMs ?? 500;
  const max = options.maxBackoffMs ?? 30_000;
  const url = new URL('/relay', options.baseUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
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
    socket = new WebSocket(url, { headers: { authorization: `Bearer ${options.token}` } });
    socket.on('open', () => {
      backoff = min;
      options.log(`relay connected to ${url.origin}, forwarding to ${options.forwardTo}`);
      markConnected();
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
      let message: WebhookMessage;
      try {
        message = JSON.parse(String(data)) as WebhookMessage;
      } catch {
        return;
      }
      if (message.type === 'webhook') void forward(message);
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

  const forward = async (message: WebhookMessage) => {
    const started = performance.now();
    const result = await local.forward(message.headers, message.body);
    // The local receiver could not be reached: the simulator counts it as a failed attempt.
    const status = 'status' in result ? result.status : 502;
    if ('error' in result) options.log(`  ${message.event_id}: local receiver unreachable: ${result.error}`);
    options.log(
      `${new Date().toISOString()} ${message.event_id} → POST ${options.forwardTo}: ${status} (${Math.round(performance.now() - started)} ms)`,
    );
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

function safeMessage(text: string): string | null {
  try {
    return (JSON.parse(text) as { message?: string }).message ?? null;
  } catch {
    return null;
  }
}
