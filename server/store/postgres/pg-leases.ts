import { ident, type TableLayout } from './pg-tables.js';
import { encodeKey } from './pg-text.js';
import type { Statement } from './pg-claims.js';

// Leases of records to instances (the webhook outbox): a row of `leases`
// per leased record, held until it expires on the database's clock, so two
// instances never work on the same record at once.

/** Leases the records among `ids` that no other instance holds; answers their ids. Rows being leased right now are skipped, not waited for. */
export function leaseSql(
  layout: TableLayout,
  collection: string,
  ids: readonly string[],
  owner: string,
  ms: number,
): Statement {
  return {
    text: `WITH free AS (
             SELECT id FROM ${ident(layout.table)} WHERE id = ANY($2::text[]) FOR UPDATE SKIP LOCKED
           )
           INSERT INTO leases (collection, id, owner, expires_at)
           SELECT $1, id, $3, clock_timestamp() + make_interval(secs => $4::double precision / 1000) FROM free
           ON CONFLICT (collection, id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
             WHERE leases.expires_at <= clock_timestamp() OR leases.owner = EXCLUDED.owner
           RETURNING id`,
    values: [encodeKey(collection), ids.map(encodeKey), owner, ms],
  };
}

/** Gives `owner`'s leases of `ids` back. */
export function releaseSql(collection: string, ids: readonly string[], owner: string): Statement {
  return {
    text: 'DELETE FROM leases WHERE collection = $1 AND id = ANY($2::text[]) AND owner = $3',
    values: [encodeKey(collection), ids.map(encodeKey), owner],
  };
}
