import { Duplex, PassThrough } from 'node:stream';
import t from 'tap';
import { Link } from '../protocol/link.js';
import { ManualTimers } from '../protocol/timers.js';
import { FaultyPort, type Faults } from './faulty-port.js';

/** Two links joined back to back; the device side misbehaves as told. */
function pair(faults: Faults) {
  const toHost = new PassThrough();
  const toDevice = new PassThrough();
  const hostEnd = Duplex.from({ readable: toHost, writable: toDevice });
  const deviceEnd = Duplex.from({ readable: toDevice, writable: toHost });
  const timers = new ManualTimers();
  const host = new Link(hostEnd, { timers });
  const device = new Link(new FaultyPort(deviceEnd, faults, timers), { timers });
  const settle = async () => {
    for (let i = 0; i < 10; i += 1) await new Promise((resolve) => setImmediate(resolve));
  };
  return { host, device, timers, settle };
}

t.test('a frame sent with a corrupted LRC is NAKed and sent again, and arrives once', async (t) => {
  const { host, device, settle } = pair({ corruptFrame: 1 });
  const received: string[] = [];
  host.on('message', (payload: string) => received.push(payload));
  await device.send('0110|SN1|1.0|0|0');
  await settle();
  t.same(received, ['0110|SN1|1.0|0|0']);
});

t.test('a dropped ACK makes the peer send again; the repeat is re-acknowledged and processed once', async (t) => {
  const { host, device, timers, settle } = pair({ dropAck: 1 });
  const received: string[] = [];
  device.on('message', (payload: string) => received.push(payload));
  const sent = host.send('0250');
  await settle();
  timers.advance(2000); // no ACK came: the host sends again
  await settle();
  await sent;
  t.same(received, ['0250'], 'processed once');
});

t.test('frames split with a gap over 200 ms never arrive whole: NakLimitError after three tries', async (t) => {
  const { host, device, timers, settle } = pair({ splitGapMs: 250 });
  const failed = device.send('0260').catch((e: Error) => e);
  // Each try: the first half goes out, then 250 ms later (on the injected clock) the second, too late.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    await settle();
    timers.advance(250);
    await settle();
  }
  t.match(await failed, { code: 'NAK_LIMIT' });
  void host;
});
