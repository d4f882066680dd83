import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../../log.js';
import type { BusMessage, InstanceBus } from '../coordination.js';

/** NOTIFY carries at most 8000 bytes; larger messages travel through a table and the notice names the row. */
const NOTIFY_LIMIT_BYTES = 7000;
const SPILL_KEEP_MINUTES = 5;

/**
 * The bus between instances on one database: NOTIFY to publish, one
 * dedicated connection that LISTENs (reconnected after a failure, with
 * its channels listened to again). Channel names are prefixed so they
 * cannot clash with another application's.
 */
export class PgBus implements InstanceBus {
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  private readonly listeners = new Map<string, Set<(message: BusMessage) => void>>();
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly connectionString: string,
    private readonly log: Logger,
  ) {}

  async publish(channel: string, message: BusMessage): Promise<void> {
    let text = JSON.stringify(message);
    if (Buffer.byteLength(text) > NOTIFY_LIMIT_BYTES) {
      const id = randomUUID();
      await this.pool.query('INSERT INTO bus_spill (id, payload) VALUES ($1, $2)', [id, text]);
      void this.pool
        .query(`DELETE FROM bus_spill WHERE created_at < now() - interval '${SPILL_KEEP_MINUTES} minutes'`)
        .catch(() => undefined);
      text = JSON.stringify({ $spill: id });
    }
    await this.pool.query('SELECT pg_notify($1, $2)', [pgChannel(channel), text]);
  }

  async subscribe(channel: string, listener: (message: BusMessage) => void): Promise<() => void> {
    let set = this.listeners.get(channel);
    if (!set) {
      this.listeners.set(channel, (set = new Set()));
      const client = await this.connection();
      await client.query(`LISTEN ${pgChannel(channel)}`);
    }
    set.add(listener);
    return () => void set.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private connection(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.connectionString });
      // Listening before connecting: a drop can be reported in the same read as the handshake's end,
      // before this connection is the bus's; then it is thrown away here instead.
      let droppedEarly: Error | undefined;
      const dropped = (error: Error) => (this.client === client ? this.lost(client, error) : (droppedEarly ??= error));
      client.on('error', dropped);
      client.on('end', () => dropped(new Error('connection ended')));
      client.on('notification', (notice) => void this.deliver(notice.channel, notice.payload ?? ''));
      try {
        await client.connect();
        if (droppedEarly) throw droppedEarly;
      } catch (error) {
        client.end().catch(() => undefined);
        throw error;
      }
      this.client = client;
      return client;
    })().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  /** The listening connection failed: connect again and listen to every channel again. */
  private lost(client: pg.Client, error: Error): void {
    if (this.client !== client || this.closed) return;
    this.client = null;
    this.log.warn('lost the connection listening for other instances; reconnecting', { error: error.message });
    const retry = async (delayMs: number): Promise<void> => {
      if (this.closed) return;
      try {
        const fresh = await this.connection();
        for (const channel of this.listeners.keys()) await fresh.query(`LISTEN ${pgChannel(channel)}`);
      } catch {
        // At most 1 s apart, so the bus is back within a second of the database.
        setTimeout(() => void retry(Math.min(delayMs * 2, 1000)), delayMs).unref();
      }
    };
    void retry(100);
  }

  private async deliver(pgName: string, payload: string): Promise<void> {
    const listeners = this.listeners.get(pgName.slice(PREFIX.length));
    if (!listeners || listeners.size === 0) return;
    try {
      let message = JSON.parse(payload) as BusMessage;
      if (typeof message.$spill === 'string') {
        const { rows } = await this.pool.query<{ payload: string }>('SELECT payload FROM bus_spill WHERE id = $1', [
          message.$spill,
        ]);
        if (!rows[0]) return;
        message = JSON.parse(rows[0].payload) as BusMessage;
      }
      for (const listener of listeners) listener(message);
    } catch (error) {
      this.log.warn('dropped a message from another instance', { channel: pgName, error: (error as Error).message });
    }
  }
}

const PREFIX = 'svc_';

/** A channel name as PostgreSQL sees it: prefixed, lower case, safe to splice into LISTEN. */
function pgChannel(channel: string): string {
  if (!/^[a-z][a-z0-9_]{0,40}$/.test(channel)) throw new Error(`bad bus channel name: ${channel}`);
  return PREFIX + channel;
}
