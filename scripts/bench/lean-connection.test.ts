import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import t, { type Test } from 'tap';
import { encodeRequest, frameAnswer, LeanConnection } from './lean-connection.js';
import { pacedLoad, requireAllAnswered } from './paced-load.js';

async function listen(
  t: Test,
  handle: (req: IncomingMessage, body: Buffer, res: ServerResponse) => void,
): Promise<number> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => handle(req, Buffer.concat(chunks), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return (server.address() as AddressInfo).port;
}

t.test('sends requests one after another on one connection and reads answers of any size', async (t) => {
  const seen: Array<{
    method: string;
    url: string;
    body: string;
    length: string | undefined;
    custom: string | undefined;
  }> = [];
  const port = await listen(t, (req, body, res) => {
    seen.push({
      method: req.method!,
      url: req.url!,
      body: body.toString('utf8'),
      length: req.headers['content-length'],
      custom: req.headers['x-custom'] as string | undefined,
    });
    res
      .writeHead(seen.length === 2 ? 409 : 200, { 'content-length': String(seen.length === 3 ? 300_000 : 2) })
      .end(seen.length === 3 ? 'x'.repeat(300_000) : 'ok');
  });
  const connection = await LeanConnection.open('127.0.0.1', port);
  t.teardown(() => connection.destroy());
  const host = `127.0.0.1:${port}`;
  const body = '{"name":"Zoë ✓"}';
  t.equal(
    await connection.send(
      encodeRequest(
        { method: 'POST', path: '/a?b=1', headers: { 'x-custom': 'yes', 'content-length': '999' }, body },
        host,
      ),
    ),
    200,
  );
  t.equal(
    await connection.send(encodeRequest({ method: 'GET', path: '/c', headers: {} }, host)),
    409,
    'a status is reported as it is',
  );
  t.equal(
    await connection.send(encodeRequest({ method: 'GET', path: '/big', headers: {} }, host)),
    200,
    'an answer arriving in many chunks',
  );
  t.same(
    seen[0],
    { method: 'POST', url: '/a?b=1', body, length: String(Buffer.byteLength(body)), custom: 'yes' },
    'exact bytes; content-length is computed, never taken from the headers given',
  );
  t.same(seen[1], { method: 'GET', url: '/c', body: '', length: undefined, custom: undefined });
  t.ok(connection.open);
  await t.rejects(
    Promise.all([
      connection.send(encodeRequest({ method: 'GET', path: '/d', headers: {} }, host)),
      connection.send(encodeRequest({ method: 'GET', path: '/e', headers: {} }, host)),
    ]),
    /already in flight/,
  );
});

t.test('frames answers by content-length or chunks, and says when it cannot', async (t) => {
  const frame = (text: string) => frameAnswer(Buffer.from(text, 'latin1'));
  t.same(frame('HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok'), { status: 201, end: 45 });
  t.equal(frame('HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\no'), null, 'body incomplete');
  t.equal(frame('HTTP/1.1 201 Created\r\nContent-Len'), null, 'head incomplete');
  const chunked = 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\na\r\n0123456789\r\n0\r\n\r\n';
  t.same(frame(chunked), { status: 200, end: chunked.length });
  for (const cut of [50, 60, chunked.length - 1]) t.equal(frame(chunked.slice(0, cut)), null, `chunked, cut at ${cut}`);
  const trailer = 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0\r\nx-trailer: 1\r\n\r\n';
  t.same(frame(trailer), { status: 200, end: trailer.length }, 'trailers skipped');
  t.match(frame('HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nok'), /neither content-length nor chunked/);
  t.match(frame('SSH-2.0-OpenSSH\r\n\r\n'), /not an HTTP\/1.1 answer/);
});

t.test('an answer it cannot frame, or a connection that closes, fails the request with a reason', async (t) => {
  const sockets: Socket[] = [];
  const raw = createTcpServer((socket) => {
    sockets.push(socket);
    socket.once('data', () => {
      if (sockets.length === 1) socket.write('HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nok');
      else socket.destroy();
    });
  });
  await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    raw.close();
  });
  const port = (raw.address() as AddressInfo).port;
  const get = encodeRequest({ method: 'GET', path: '/', headers: {} }, `127.0.0.1:${port}`);

  const unframed = await LeanConnection.open('127.0.0.1', port);
  await t.rejects(unframed.send(get), /neither content-length nor chunked/);
  t.notOk(unframed.open);
  await t.rejects(unframed.send(get), /neither content-length nor chunked/, 'later requests fail the same way');

  let closedSeen = false;
  const closing = await LeanConnection.open('127.0.0.1', port, () => (closedSeen = true));
  await t.rejects(closing.send(get), /closed/);
  t.ok(closedSeen, 'onClose ran');
  await t.rejects(LeanConnection.open('127.0.0.1', 1), 'a refused connection rejects');
});

t.test('paced load: every request of the window answered and measured, the first failure named', async (t) => {
  let statusOf = 200;
  const port = await listen(t, (_req, _body, res) => res.writeHead(statusOf).end('{}'));
  let n = 0;
  const next = () => ({
    method: 'POST',
    path: `/x/${(n += 1)}`,
    headers: { 'content-type': 'application/json' },
    body: '{"a":1}',
  });
  const ok = await pacedLoad({ baseUrl: `http://127.0.0.1:${port}`, rate: 500, durationS: 0.2, warmupS: 0.1, next });
  t.equal(ok.completed, 100, '500/s for 0.2 s');
  t.equal(ok.sent, 100);
  t.equal(ok.errors + ok.non2xx, 0);
  t.ok(ok.p99 >= ok.p50 && ok.max >= ok.p99 && ok.answerP99 >= ok.answerP50);
  t.equal(n, 150, 'the warm-up sends at the same rate, unmeasured');
  statusOf = 503;
  const refused = await pacedLoad({
    baseUrl: `http://127.0.0.1:${port}`,
    rate: 500,
    durationS: 0.02,
    warmupS: 0,
    next,
  });
  t.equal(refused.non2xx, refused.sent);
  const down = await pacedLoad({ baseUrl: 'http://127.0.0.1:1', rate: 500, durationS: 0.02, warmupS: 0, next });
  t.equal(down.errors, down.sent);
  t.match(down.firstError, /ECONNREFUSED/);
  t.throws(() => requireAllAnswered('reads', down), /^reads: 0 non-2xx answers and \d+ errors \(first: .*ECONNREFUSED/);
  t.throws(() => requireAllAnswered('reads', refused), /reads: \d+ non-2xx answers and 0 errors$/);
  t.equal(requireAllAnswered('reads', ok), ok);
});
