import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { startTestServer } from '../testing/test-server.js';
import { DRAIN_LIMIT_BYTES } from './read-body.js';

/** A raw HTTP/1.1 connection, so the test decides when each byte of a body is sent. */
async function openConnection(baseUrl: string) {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  /** Waits for the next complete answer (headers and a content-length body) and takes it off the buffer. */
  const nextAnswer = async (): Promise<{ status: number; head: string; body: string }> => {
    for (;;) {
      const end = received.indexOf('\r\n\r\n');
      if (end >= 0) {
        const head = received.slice(0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (received.length >= end + 4 + length) {
          const body = received.slice(end + 4, end + 4 + length);
          received = received.slice(end + 4 + length);
          return { status: Number(head.split(' ')[1]), head, body };
        }
      }
      await Promise.race([
        once(socket, 'data'),
        closed.then(() => Promise.reject(new Error(`closed; received so far: ${received}`))),
      ]);
    }
  };
  return { socket, nextAnswer, closed };
}

function write(socket: Socket, data: string): Promise<void> {
  return new Promise((resolve, reject) => socket.write(data, (error) => (error ? reject(error) : resolve())));
}

t.test(
  'a declared body over the limit is answered 413 before it is sent, then read and discarded: the connection lives on',
  async (t) => {
    const { baseUrl } = await startTestServer(t);
    const { socket, nextAnswer } = await openConnection(baseUrl);
    t.teardown(() => socket.destroy());
    const body = 'x'.repeat(1024 * 1024 + 1);
    await write(
      socket,
      `POST /console/register HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const refused = await nextAnswer();
    t.equal(refused.status, 413, 'answered before a byte of the body arrived');
    t.equal(JSON.parse(refused.body).code, 'PAYLOAD_TOO_LARGE');
    t.notMatch(refused.head, /connection: close/i, 'no reset under a client still sending');
    // The client finishes sending (a reset here would have thrown its answer away), then asks again.
    await write(socket, body);
    await write(socket, 'GET /health HTTP/1.1\r\nHost: test\r\n\r\n');
    t.equal((await nextAnswer()).status, 200, 'the same connection answers the next request');
  },
);

t.test('a chunked body passing the limit is answered 413 and the rest is drained', async (t) => {
  const { baseUrl } = await startTestServer(t);
  const { socket, nextAnswer } = await openConnection(baseUrl);
  t.teardown(() => socket.destroy());
  await write(
    socket,
    'POST /console/register HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
  );
  const chunk = 'y'.repeat(64 * 1024);
  for (let i = 0; i < 20; i += 1) await write(socket, `${chunk.length.toString(16)}\r\n${chunk}\r\n`);
  const refused = await nextAnswer();
  t.equal(refused.status, 413);
  for (let i = 0; i < 20; i += 1) await write(socket, `${chunk.length.toString(16)}\r\n${chunk}\r\n`);
  await write(socket, '0\r\n\r\nGET /health HTTP/1.1\r\nHost: test\r\n\r\n');
  t.equal((await nextAnswer()).status, 200, 'the connection survived the refused body');
});

t.test('a body declared past the drain limit is refused with the connection closed', async (t) => {
  const { baseUrl } = await startTestServer(t);
  const { socket, nextAnswer, closed } = await openConnection(baseUrl);
  t.teardown(() => socket.destroy());
  await write(
    socket,
    `POST /console/register HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: ${DRAIN_LIMIT_BYTES + 1}\r\n\r\n`,
  );
  const refused = await nextAnswer();
  t.equal(refused.status, 413);
  t.match(refused.head, /connection: close/i);
  await closed;
});

t.test('a chunked body that goes on past the drain limit gets its connection cut', async (t) => {
  const { baseUrl } = await startTestServer(t);
  const { socket, nextAnswer, closed } = await openConnection(baseUrl);
  t.teardown(() => socket.destroy());
  socket.on('error', () => undefined); // writes after the cut may fail; that is the point
  await write(
    socket,
    'POST /console/register HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
  );
  const chunk = 'z'.repeat(1024 * 1024);
  const answered = nextAnswer();
  let sent = 0;
  let open = true;
  void closed.then(() => (open = false));
  while (open && sent <= DRAIN_LIMIT_BYTES + chunk.length) {
    await write(socket, `${chunk.length.toString(16)}\r\n${chunk}\r\n`).catch(() => (open = false));
    sent += chunk.length;
  }
  t.equal((await answered).status, 413);
  await closed;
  t.pass('the server cut the connection');
});
