// A reference for bench:pos, not part of the product: the least a durable
// signed settlement route can do on Koa. It reads the body, checks the HMAC
// (one terminal, its secret given), parses the JSON, keeps the settlement in
// a Map, appends it to a file with group commit and fdatasync, and answers
// JSON. No validation, replay cache, router, or store transaction: what the
// real route adds over it is what the spec asks for.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { posSignatureBytes } from '../../contracts/pos-signature.js';
import { bytesEqualHex } from '../../server/accounts/secrets.js';
import { JournalWriter } from '../../server/store/journal-writer.js';

const [dir, secret] = process.argv.slice(2);
if (!dir || !secret) {
  process.stderr.write('usage: minimal-route DIR SECRET\n');
  process.exit(2);
}
// The store's own group commit (one batch at a time, write then fdatasync), without its transactions.
const journal = await JournalWriter.open(dir, 1);
let seq = 0;
const settlements = new Map<string, unknown>();

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
  if (!settlements.has(key)) {
    const record = { ...settlement, receivedAt: new Date().toISOString() };
    settlements.set(key, record);
    seq += 1;
    await journal.append(seq, `${JSON.stringify(record)}\n`);
  }
  ctx.body = { title: 'Settlement notification', data: settlements.get(key) };
});
const server = createServer(app.callback()).listen(0, '127.0.0.1', () => {
  process.stdout.write(`port ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
