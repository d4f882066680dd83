import { PassThrough } from 'node:stream';
import type { AppContext } from '../http/context.js';
import type { Store } from '../store/store.js';
import type { TraceRecord } from '../trace/trace.js';

// GET /console/trace/stream: the trace entries an account writes, pushed as
// Server-Sent Events while the console is open, so it shows a new event
// within a fraction of a second and, when nothing happens, costs a comment
// line every 15 s instead of a request a second. The stream looks for new
// entries on the trace's write-order index (examining nothing when there
// are none), re-checks the console token every few seconds (a login rotates
// it: the stream then says `unauthorized` and ends), and ends when the
// client goes, when asked to after `max_seconds`, or when the server stops.

export interface StreamTiming {
  /** How often the store is asked for new entries. */
  pollMs: number;
  /** How often the token is checked again. */
  tokenCheckMs: number;
  /** A comment this often keeps proxies from closing an idle stream. */
  keepAliveMs: number;
}

const DEFAULT_TIMING: StreamTiming = { pollMs: 250, tokenCheckMs: 5000, keepAliveMs: 15_000 };

/** An entry as the console API shows it: without the store's own ordering fields. */
export const publicEntry = ({ account_id: _account, order: _order, listed: _listed, ...entry }: TraceRecord) => entry;

export class TraceStreams {
  private readonly ends = new Set<() => void>();

  constructor(
    private readonly store: Store,
    /** Whether the console token the stream was opened with still opens the console. */
    private readonly tokenStillValid: (token: string) => Promise<boolean>,
    private readonly timing: StreamTiming = DEFAULT_TIMING,
  ) {}

  /** Answers `ctx` with the stream of entries matching `where` written after `after` (or from now). */
  async serve(
    ctx: AppContext,
    where: Record<string, string>,
    after: string | undefined,
    maxSeconds: number | undefined,
    token: string,
  ): Promise<void> {
    let cursor = after !== undefined ? Number(after) : await this.newest(where);
    const stream = new PassThrough();
    ctx.status = 200;
    ctx.type = 'text/event-stream';
    ctx.set('X-Accel-Buffering', 'no'); // a proxy in front must pass events on as they come
    ctx.body = stream;
    ctx.req.socket.setNoDelay(true);

    let ended = false;
    let timer: NodeJS.Timeout | undefined;
    const end = () => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      this.ends.delete(end);
      stream.end();
    };
    this.ends.add(end);
    ctx.req.on('close', end);
    const started = Date.now();
    let checked = started;
    let wrote = started;
    const send = (text: string) => {
      stream.write(text);
      wrote = Date.now();
    };
    send(`event: ready\ndata: ${JSON.stringify({ cursor: String(cursor) })}\n\n`);

    const look = async (): Promise<void> => {
      try {
        const entries = await this.store.list<TraceRecord>('trace', {
          where,
          range: { field: 'order', min: cursor + 1 },
          orderBy: { field: 'order', direction: 'asc' },
          limit: 200,
        });
        if (ended) return;
        if (entries.length > 0) {
          cursor = entries.at(-1)!.order;
          send(
            `event: entries\ndata: ${JSON.stringify({ data: entries.reverse().map(publicEntry), cursor: String(cursor) })}\n\n`,
          );
        }
        const now = Date.now();
        if (now - checked >= this.timing.tokenCheckMs) {
          checked = now;
          if (!(await this.tokenStillValid(token))) {
            send(
              'event: unauthorized\ndata: {"message":"this console token no longer opens the console: a newer login replaced it"}\n\n',
            );
            return end();
          }
        }
        if (maxSeconds !== undefined && now - started >= maxSeconds * 1000) return end();
        if (now - wrote >= this.timing.keepAliveMs) send(': keep-alive\n\n');
      } catch (error) {
        // The store away: the client reconnects with its cursor, and nothing is missed.
        if (!ended) send(`event: error\ndata: ${JSON.stringify({ message: (error as Error).message })}\n\n`);
        return end();
      }
      if (!ended) timer = setTimeout(() => void look(), this.timing.pollMs);
    };
    void look();
  }

  /** Ends every open stream (the server is stopping). */
  close(): void {
    for (const end of [...this.ends]) end();
  }

  private async newest(where: Record<string, string>): Promise<number> {
    const [last] = await this.store.list<TraceRecord>('trace', {
      where,
      orderBy: { field: 'order', direction: 'desc' },
      limit: 1,
    });
    return last?.order ?? 0;
  }
}
