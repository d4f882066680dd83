// A reference for bench:pos, not part of the product: the least a durable
// signed settlement route can do on Koa. It reads the body, checks the HMAC
// (one terminal, its secret given), parses the JSON, keeps the settlement in
// a Map, appends it to a file with group commit and fdatasync, and answers
// JSON. No validation, replay cache, router, or store transaction: what the
// real route adds over it is what the interface asks for. With --postgres URL it
// keeps the settlement in PostgreSQL instead: one INSERT … ON CONFLICT DO
// NOTHING per request into a table with only its primary key (a prepared
// statement, one commit), the ceiling of any durable route on that database.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import pg from 'pg';
import { posSignatureBytes } from '../../contracts/pos-signature.js';
import { bytesEqualHex } from '../../server/accounts/secrets.js';
import { JournalWriter } from '../../server/store/embedded/journal-writer.js';

const [dir, secret, flag, postgresUrl] = process.argv.slice(2);
if (!dir || !secret || (flag !== undefined && (flag !== '--postgres' || !postgresUrl))) {
  process.stderr.write('usage: minimal-route DIR SECRET [--postgres URL]\n');
  process.exit(2);
}
// The store's own group commit (one batch at a time, write then fdatasync), without its transactions.
const journal = await JournalWriter.open(dir, 1);
let seq = 0;
const settlements = new Map<string, unknown>();

const pool = postgresUrl ? new pg.Pool({ connectionString: postgresUrl, max: 10 }) : null;
pool?.on('error', () => undefined);
await pool?.query('CREATE TABLE IF NOT EXISTS minimal_settlements (key text PRIMARY KEY, data jsonb NOT NULL)');
/** Keeps the record once, durably: answers the record kept under the key. */
async function keep(key: string, record: unknown): Promise<unknown> {
  if (!pool) {
    if (!settlements.has(key)) {
      settlements.set(key, record);
      seq += 1;
      await journal.append(seq, `${JSON.stringify(record)}\n`);
    }
    return settlements.get(key);
  }
  const inserted = await pool.query({
    name: 'keep',
    text: 'INSERT INTO minimal_settlements (key, data) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING',
    values: [key, JSON.stringify(record)],
  });
  if (inserted.rowCount === 1) return record;
  return (
    await pool.query({ name: 'read', text: 'SELECT data FROM minimal_settlements WHERE key = $1', values: [key] })
  ).rows[0]?.data;
}

const app = new Koa();
app.use(async (ctx) => {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const expected = posSignatureBytes(secret, ctx.get('x-pos-timestamp'), ctx.originalUrl, raw);
  if (!bytesEqualHex(expected, ctx.get('x-pos-signature'))) {
    ctx.status = 401;
    return;
  }
  const settlement = JSON.parse(raw.toString('utf8')) as { batchNumber: string };
  const key = `${ctx.path}#${settlement.batchNumber}`;
  ctx.body = {
    title: 'Settlement notification',
    data: await keep(key, { ...settlement, receivedAt: new Date().toISOString() }),
  };
});
const server = createServer(app.callback()).listen(0, '127.0.0.1', () => {
  process.stdout.write(`port ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
