import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import t from 'tap';
import type { Link } from '../protocol/link.js';
import { DeviceCore } from './device-core.js';

// The core every emulated device shares: its state journaled before it
// answers, requests worked in turn (or as they come), a failure of one
// request never stopping the next.

/** A line whose sends are recorded; `hear` delivers a request as the host's. */
function fakeLine() {
  const sent: string[] = [];
  const line = Object.assign(new EventEmitter(), { send: async (payload: string) => void sent.push(payload) });
  return { link: line as unknown as Link, sent, hear: (payload: string) => line.emit('message', payload) };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

t.test('the state is journaled on commit and loaded by the next device on the same journal', async (t) => {
  const statePath = join(t.testdir(), 'device.json');
  const first = new DeviceCore<{ n: number }>({ statePath, load: (journal) => journal ?? { n: 0 } });
  first.commit({ n: 1 });
  const second = new DeviceCore<{ n: number }>({ statePath, load: (journal) => journal ?? { n: 0 } });
  t.same(second.state, { n: 1 });
  t.same(
    new DeviceCore<{ n: number }>({ load: (journal) => journal ?? { n: 7 } }).state,
    { n: 7 },
    'without a journal, a new device',
  );
});

t.test('requests worked in turn: one that fails is logged, and the next is worked', async (t) => {
  const logs: string[] = [];
  const core = new DeviceCore<null>({ load: () => null, log: (line) => logs.push(line) });
  const { link, sent, hear } = fakeLine();
  core.attach(
    link,
    async (payload) => {
      if (payload === 'bad') throw new Error('cannot');
      await core.send(`ok ${payload}`);
    },
    true,
  );
  hear('0100');
  hear('bad');
  hear('0200');
  await nextTurn();
  await core.idle();
  t.same(sent, ['ok 0100', 'ok 0200']);
  t.same(logs, ['request bad failed: cannot']);
});

t.test('a send with no line is one log line and answers false', async (t) => {
  const logs: string[] = [];
  const core = new DeviceCore<null>({ load: () => null, log: (line) => logs.push(line) });
  t.equal(await core.send('0110|x'), false);
  t.same(logs, ['could not answer 0110: no line attached']);
});
