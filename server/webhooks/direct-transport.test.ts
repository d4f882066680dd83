import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { sendDirect } from './direct-transport.js';
import type { WebhookRequest } from './transport.js';

async function local(t: Test, handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler).listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

const request = (url: string, signal = new AbortController().signal): WebhookRequest => ({
  account_id: 'acc_1',
  event_id: 'evt_1',
  url,
  headers: {
    'content-type': 'application/json',
    'svc-signature': 'sig',
    'svc-timestamp': 'ts',
    'idempotency-key': 'k',
  },
  body: '{"event":"x"}',
  signal,
});

t.test('a host that resolves to a local or private address goes through the relay, never direct', async (t) => {
  for (const address of ['127.0.0.1', '10.1.2.3', '::1', '::ffff:192.168.0.9']) {
    const result = await sendDirect(request('http://innocent.example.com/hook'), {
      resolve: async () => [{ address, family: address.includes(':') ? 6 : 4 }],
    });
    t.same(result, { reroute: 'relay' }, address);
  }
});

t.test('the exact body and headers are sent; the status comes back', async (t) => {
  let seen: { body: string; headers: IncomingMessage['headers'] } | null = null;
  const url = await local(t, (req, res) => {
    let body = '';
    req
      .on('data', (c) => (body += c))
      .on('end', () => {
        seen = { body, headers: req.headers };
        res.writeHead(204).end();
      });
  });
  t.same(await sendDirect(request(url), { allowPrivate: true }), { status: 204, body: '' });
  t.equal(seen!.body, '{"event":"x"}');
  t.match(seen!.headers, {
    'svc-signature': 'sig',
    'svc-timestamp': 'ts',
    'idempotency-key': 'k',
    'content-type': 'application/json',
  });
});

t.test('a redirect is not followed: it is a failed attempt', async (t) => {
  let hits = 0;
  const url = await local(t, (_req, res) => {
    hits += 1;
    res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
  });
  t.match(await sendDirect(request(url), { allowPrivate: true }), { status: 302 });
  t.equal(hits, 1);
});

t.test('a receiver that answers 10 MB is read no further than 64 KiB', async (t) => {
  let finished = false;
  const url = await local(t, (req, res) => {
    req.resume();
    res.writeHead(200);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let sent = 0;
    const pump = () => {
      while (sent < 10 * 1024 * 1024) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end(() => (finished = true));
    };
    res.on('close', () => undefined);
    pump();
  });
  t.same(
    await sendDirect(request(url), { allowPrivate: true }),
    { status: 200, body: `${'x'.repeat(2048)} [cut at 2 KiB]` },
    'the status and the first 2 KiB',
  );
  t.notOk(finished, 'the connection was dropped long before 10 MB went through');
});

t.test("a receiver that hangs is aborted by the attempt's signal", async (t) => {
  const url = await local(t, () => undefined); // never answers
  const timeout = new AbortController();
  const pending = sendDirect(request(url, timeout.signal), { allowPrivate: true });
  setImmediate(() => timeout.abort());
  t.same(await pending, { error: 'timed out after 5000 ms' });
});

t.test('an unresolvable host is a failed attempt with the reason', async (t) => {
  const result = await sendDirect(request('http://nowhere.invalid/hook'), {
    resolve: async () => Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' })),
  });
  t.same(result, { error: 'cannot resolve nowhere.invalid: ENOTFOUND' });
});
