// A reference for bench:pos, not part of the product: the least a durable
// signed settlement route can do on Koa. It reads the body, checks the HMAC
// (one terminal, its secret given), parses the JSON, keeps the settlement in
// a Map, appends it to a file with group commit and fdatasync, and answers
// JSON. No validation, replay cache, router, or store transaction: what the
// real route adds over it is what the spec asks for.
import { timingSafeEqual } from 'node:crypto';
import { open } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Koa from 'koa';
import { posSignatureBytes } from '../../contracts/pos-signature.js';

const [dir, secret] = process.argv.slice(2);
if (!dir || !secret) {
  process.stderr.write('usage: minimal-route DIR SECRET\n');
  process.exit(2);
}
const file = await open(join(dir, 'settlements.jsonl'), 'a');
const settlements = new Map<string, unknown>();

// Group commit, one batch at a time: lines queued during a flush go out together in the next.
let queued: Array<{ line: string; done: () => void }> = [];
let flushing = false;
async function flush(): Promise<void> {
  flushing = true;
  while (queued.length > 0) {
    const batch = queued;
    queued = [];
    await file.write(batch.map((item) => item.line).join(''));
    await file.datasync();
    for (const item of batch) item.done();
  }
  flushing = false;
}
function durable(line: string): Promise<void> {
  return new Promise((done) => {
    queued.push({ line, done });
    if (!flushing) void flush();
  });
}

const app = new Koa();
app.use(async (ctx) => {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const expected = posSignatureBytes(secret, ctx.get('x-pos-timestamp'), ctx.originalUrl, raw);
  const received = Buffer.from(ctx.get('x-pos-signature'), 'hex');
  if (received.length !== expected.length || !timingSafeEqual(received, expected)) {
    ctx.status = 401;
    return;
  }
  const settlement = JSON.parse(raw.toString('utf8')) as { batchNumber: string };
  const key = `${ctx.path}#${settlement.batchNumber}`;
  if (!settlements.has(key)) {
    const record = { ...settlement, receivedAt: new Date().toISOString() };
    settlements.set(key, record);
    await durable(`${JSON.stringify(record)}\n`);
  }
  ctx.body = { title: 'Settlement notification', data: settlements.get(key) };
});
const server = createServer(app.callback()).listen(0, '127.0.0.1', () => {
  process.stdout.write(`port ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
