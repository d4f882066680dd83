// The baseline of bench:pos: a bare Koa hello-world on a random port.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';

const app = new Koa();
app.use((ctx) => {
  ctx.body = 'Hello World';
});
const server = createServer(app.callback()).listen(0, '127.0.0.1', () => {
  process.stdout.write(`port ${(server.address() as AddressInfo).port}\n`);
});
