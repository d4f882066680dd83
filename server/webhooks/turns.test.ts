import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import t from 'tap';
import { Turns } from './turns.js';

/** A schedule the test runs by hand: each call is one turn of a pretend event loop. */
function manualLoop() {
  const queued: Array<() => void> = [];
  return {
    schedule: (callback: () => void) => void queued.push(callback),
    get pending() {
      return queued.length;
    },
    /** Runs the turns queued so far, as one check phase does, then lets microtasks run. */
    async turn() {
      for (const callback of queued.splice(0)) callback();
      await new Promise<void>((resolve) => queueMicrotask(resolve));
    },
  };
}

t.test('wakes one waiter per turn, in the order they asked', async (t) => {
  const loop = manualLoop();
  const turns = new Turns(loop.schedule);
  const woken: number[] = [];
  for (const n of [1, 2, 3]) void turns.take().then(() => woken.push(n));
  t.equal(loop.pending, 1, 'one turn is scheduled however many wait');
  t.equal(turns.queued, 3);
  await loop.turn();
  t.same(woken, [1]);
  await loop.turn();
  t.same(woken, [1, 2]);
  await loop.turn();
  t.same(woken, [1, 2, 3]);
  t.equal(loop.pending, 0, 'nothing is scheduled once no one waits');
  t.equal(turns.queued, 0);
});

t.test('a waiter that asks again from its own turn gets the next free turn', async (t) => {
  const loop = manualLoop();
  const turns = new Turns(loop.schedule);
  const woken: string[] = [];
  void turns.take().then(async () => {
    woken.push('a1');
    await turns.take();
    woken.push('a2');
  });
  void turns.take().then(() => woken.push('b'));
  await loop.turn();
  t.same(woken, ['a1']);
  await loop.turn();
  t.same(woken, ['a1', 'b'], 'b asked first');
  await loop.turn();
  t.same(woken, ['a1', 'b', 'a2']);
  t.equal(loop.pending, 0);
});

t.test('on the real event loop, I/O that arrives between pieces is handled before the rest of them', async (t) => {
  // Ten pieces are queued at once; the first sends bytes over a loopback
  // socket. With every piece on its own turn, the poll phase after the
  // first sees the bytes long before the tenth piece runs. (Ten
  // setImmediate calls made together would all run in one check phase,
  // before any I/O.)
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
  const [accepted] = (await once(server, 'connection')) as [Socket];
  await once(client, 'connect');
  t.teardown(() => {
    client.destroy();
    accepted.destroy();
    server.close();
  });

  const events: string[] = [];
  accepted.on('data', () => events.push('io'));
  const turns = new Turns();
  await Promise.all(
    Array.from({ length: 10 }, (_, n) =>
      turns.take().then(() => {
        events.push(`piece ${n}`);
        if (n === 0) client.write('x');
      }),
    ),
  );
  const io = events.indexOf('io');
  t.ok(io > 0 && io < events.indexOf('piece 9'), `the bytes were read between pieces: ${events.join(', ')}`);
});

t.test('once every waiter has had its turn, the next one to ask is scheduled anew', async (t) => {
  const loop = manualLoop();
  const turns = new Turns(loop.schedule);
  const woken: string[] = [];
  void turns.take().then(() => woken.push('first'));
  await loop.turn();
  t.same(woken, ['first']);
  t.equal(loop.pending, 0, 'nothing left scheduled');
  void turns.take().then(() => woken.push('later'));
  t.equal(loop.pending, 1, 'a later waiter schedules a turn');
  await loop.turn();
  t.same(woken, ['first', 'later']);
});
