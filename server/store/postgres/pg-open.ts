import pg from 'pg';
import { FaultLog } from '../../fault-log.js';
import type { Logger } from '../../log.js';
import { migrate, readSchema } from './pg-migrations.js';
import { typeParser } from './pg-statements.js';
import { leftoversIn, leftoversNotice } from './pg-upgrade.js';

/**
 * The pool the store works through, its connections' fault log, and the
 * schema as it stands once migrated (a table already laid out needs no DDL).
 * A start that cannot migrate closes the pool and throws.
 */
export async function openPool(
  connectionString: string,
  max: number,
  log: Logger,
): Promise<{ pool: pg.Pool; connections: FaultLog; schema: Map<string, Map<string, string>> }> {
  const pool = new pg.Pool({
    connectionString,
    max,
    // A request waits at most this long for a connection, then answers 503, rather than hanging through an outage.
    connectionTimeoutMillis: 5_000,
    types: { getTypeParser: typeParser },
  });
  const connections = new FaultLog(log, 'the connection to PostgreSQL');
  // An idle connection the server dropped: the pool discards it; without a listener the process would exit.
  pool.on('error', (error) => connections.failed(error));
  // A connection can be dropped between the pool handing it over and its holder listening (the
  // server's FATAL can arrive in the same read as the handshake's end): every client listens
  // from birth. The pool still discards it (it is no longer queryable), and the holder's query fails.
  pool.on('connect', (client) => client.on('error', (error) => connections.failed(error)));
  try {
    await migrate(pool);
    const schema = await readSchema(pool);
    const notice = leftoversNotice(leftoversIn(schema));
    if (notice) log.warn(notice);
    return { pool, connections, schema };
  } catch (error) {
    await pool.end();
    throw error;
  }
}
