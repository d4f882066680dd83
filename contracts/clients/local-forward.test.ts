import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { localForwarder } from './local-forward.js';

async function receiver(
  t: Test,
  handle: (req: IncomingMessage, body: Buffer, res: ServerResponse) => void,
): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => handle(req, Buffer.concat(chunks), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook?x=1`;
}

t.test(
  'posts the exact body bytes and headers and answers the receiver status, over one kept-alive connection',
  async (t) => {
    const seen: Array<{
      url: string;
      body: string;
      signature: string | undefined;
      length: string | undefined;
      socket: number;
    }> = [];
    const sockets: object[] = [];
    const url = await receiver(t, (req, body, res) => {
      if (!sockets.includes(req.socket)) sockets.push(req.socket);
      seen.push({
        url: req.url!,
        body: body.toString('utf8'),
        signature: req.headers['svc-signature'] as string | undefined,
        length: req.headers['content-length'],
        socket: sockets.indexOf(req.socket),
      });
      res.writeHead(seen.length === 1 ? 200 : 500).end('x'.repeat(100_000));
    });
    const local = localForwarder(url);
    t.teardown(local.close);
    const body = '{"event":"payment_session.paid","amount":"1.00","name":"Zoë ✓"}';
    const kept = `${'x'.repeat(2048)} [cut at 2 KiB]`;
    t.same(
      await local.forward({ 'content-type': 'application/json', 'svc-signature': 'abc' }, body),
      { status: 200, body: kept },
      'the status, and the first 2 KiB of the answer',
    );
    t.same(
      await local.forward({ 'content-type': 'application/json', 'svc-signature': 'def' }, body),
      { status: 500, body: kept },
      'a failing receiver status is reported as is',
    );
    t.equal(seen[0]!.url, '/hook?x=1');
    t.equal(seen[0]!.body, body, 'byte for byte, multi-byte characters included');
    t.equal(seen[0]!.length, String(Buffer.byteLength(body)));
    t.same(
      seen.map((s) => s.signature),
      ['abc', 'def'],
    );
    t.same(
      seen.map((s) => s.socket),
      [0, 0],
      'the second delivery reused the connection',
    );
  },
);

t.test('an unreachable receiver and one that never answers come back as errors, not throws', async (t) => {
  const closed = await receiver(t, () => undefined);
  const port = new URL(closed).port;
  const unreachable = localForwarder(`http://127.0.0.1:1/hook`);
  t.teardown(unreachable.close);
  const result = await unreachable.forward({}, '{}');
  t.ok('error' in result && /ECONNREFUSED/.test(result.error), 'connection refused');

  let fire: (() => void) | null = null;
  const hanging = localForwarder(`http://127.0.0.1:${port}/hook`, {
    timeoutMs: 5000,
    after: (ms, onTimeout) => ((fire = onTimeout), () => (fire = null)),
  });
  t.teardown(hanging.close);
  const pending = hanging.forward({}, '{}');
  await new Promise((resolve) => setImmediate(resolve));
  t.ok(fire, 'the 5 s limit is armed');
  fire!();
  t.same(await pending, { error: 'no answer within 5000 ms' });
});
