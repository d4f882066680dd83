import t, { type Test } from 'tap';
import { SerialPortMock } from 'serialport';
import { ACK, encodeFrame, NAK } from './frame.js';
import type { LineError } from '../errors.js';
import { Link } from './link.js';
import { ManualTimers } from './timers.js';

let portNumber = 0;
async function mockLine(t: Test) {
  const path = `/dev/MOCK${++portNumber}`;
  SerialPortMock.binding.createPort(path, { record: true });
  const port = new SerialPortMock({ path, baudRate: 115200 });
  await new Promise<void>((resolve, reject) => port.on('open', resolve).on('error', reject));
  const timers = new ManualTimers();
  const link = new Link(port, { timers });
  const binding = () => port.port!;
  /** Lets the mock binding move bytes (it answers on later ticks). */
  const settle = async () => {
    for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
  };
  const written = () => binding().recording;
  const incoming = async (bytes: Buffer | number[]) => {
    binding().emitData(Buffer.from(bytes));
    await settle();
  };
  t.teardown(async () => {
    if (port.isOpen) await new Promise((resolve) => port.close(resolve));
    SerialPortMock.binding.reset();
  });
  return { port, link, timers, settle, written, incoming };
}

t.test('a frame sent is acknowledged; a second waits until the first is', async (t) => {
  const { link, settle, written, incoming } = await mockLine(t);
  const first = link.send('0100');
  const second = link.send('0250');
  await settle();
  t.same(written(), encodeFrame('0100'), 'one request outstanding at a time');
  await incoming([ACK]);
  await first;
  await settle();
  t.same(written(), Buffer.concat([encodeFrame('0100'), encodeFrame('0250')]));
  await incoming([ACK]);
  await second;
});

t.test('NAK three times fails with NakLimitError after three tries', async (t) => {
  const { link, settle, written, incoming } = await mockLine(t);
  const failed = link.send('0500').catch((e: Error) => e);
  for (let i = 0; i < 3; i += 1) {
    await settle();
    await incoming([NAK]);
  }
  t.match(await failed, { code: 'NAK_LIMIT' });
  t.same(written(), Buffer.concat([encodeFrame('0500'), encodeFrame('0500'), encodeFrame('0500')]));
});

t.test('no ACK: a retry every 2 s, then LinkTimeoutError after 3 tries', async (t) => {
  const { link, timers, settle, written } = await mockLine(t);
  const sent = link.send('0100');
  const failed = sent.catch((e: Error) => e);
  await settle();
  timers.advance(1999);
  await settle();
  t.equal(written().length, encodeFrame('0100').length, 'nothing resent before 2 s');
  timers.advance(1);
  await settle();
  t.equal(written().length, 2 * encodeFrame('0100').length, 'resent at 2 s');
  timers.advance(2000);
  await settle();
  timers.advance(2000);
  const error = await failed;
  t.match(error, { code: 'LINK_TIMEOUT' });
  t.equal(written().length, 3 * encodeFrame('0100').length);
});

t.test('a frame repeated after a lost ACK is acknowledged again but processed once', async (t) => {
  const { link, written, incoming } = await mockLine(t);
  const received: string[] = [];
  link.on('message', (payload: string) => received.push(payload));
  await incoming(encodeFrame('0210|7|ord-1|1500|USD|A1|2026-11-21T10:00:00.000Z'));
  await incoming(encodeFrame('0210|7|ord-1|1500|USD|A1|2026-11-21T10:00:00.000Z'));
  t.same(received, ['0210|7|ord-1|1500|USD|A1|2026-11-21T10:00:00.000Z']);
  t.same(written(), Buffer.of(ACK, ACK), 'both copies acknowledged');
});

t.test(
  'a bad LRC, or a frame stalled mid-way (injected clock), is answered NAK; the next good frame goes through',
  async (t) => {
    const { link, timers, written, incoming } = await mockLine(t);
    const received: string[] = [];
    link.on('message', (payload: string) => received.push(payload));
    const corrupt = encodeFrame('0110|SN1|1.0|1|0');
    corrupt[corrupt.length - 1] ^= 0x55;
    await incoming(corrupt);
    const frame = encodeFrame('0280|7');
    await incoming(frame.subarray(0, 3));
    timers.advance(250);
    await incoming(frame.subarray(3));
    await incoming(encodeFrame('0260'));
    t.same(received, ['0260']);
    t.same(written(), Buffer.of(NAK, NAK, ACK));
  },
);

t.test('the port closing fails what is pending with DisconnectedError, flagged as such', async (t) => {
  const { link, port, settle } = await mockLine(t);
  const closed = new Promise((resolve) => link.once('close', resolve));
  const pending = link.send('0100').catch((e: Error) => e);
  await settle();
  await new Promise((resolve) => port.close(resolve));
  const error = (await pending) as LineError;
  t.match(error, { code: 'DISCONNECTED' });
  t.equal(error.disconnected, true);
  t.match(await closed, { code: 'DISCONNECTED' });
  await t.rejects(link.send('0100'), { code: 'DISCONNECTED' });
});

t.test(
  'a frame cut off and followed by silence is NAKed when the gap runs out; NAK and ACK never share a write',
  async (t) => {
    const path = `/dev/MOCK${++portNumber}`;
    SerialPortMock.binding.createPort(path, { record: true });
    const port = new SerialPortMock({ path, baudRate: 115200 });
    await new Promise<void>((resolve, reject) => port.on('open', resolve).on('error', reject));
    const writes: Buffer[] = [];
    const write = port.write.bind(port) as (chunk: Buffer) => boolean;
    (port as unknown as { write: (chunk: Buffer) => boolean }).write = (chunk: Buffer) => {
      writes.push(Buffer.from(chunk));
      return write(chunk);
    };
    const timers = new ManualTimers();
    const link = new Link(port, { timers });
    const received: string[] = [];
    link.on('message', (payload: string) => received.push(payload));
    t.teardown(async () => {
      link.close();
      if (port.isOpen) await new Promise((resolve) => port.close(resolve));
      SerialPortMock.binding.reset();
    });
    const settle = async () => {
      for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
    };
    const frame = encodeFrame('0110|SN1|1.0.0|0|0');
    port.port!.emitData(frame.subarray(0, 6)); // cut off, then nothing
    await settle();
    timers.advance(200);
    t.same(writes, [], 'nothing yet, within the gap');
    timers.advance(2);
    t.same(writes, [Buffer.of(NAK)], 'NAKed at the gap, with no byte after it');
    // The sender retransmits on the NAK; the whole frame is ACKed on its own.
    port.port!.emitData(frame);
    await settle();
    t.same(writes, [Buffer.of(NAK), Buffer.of(ACK)]);
    t.same(received, ['0110|SN1|1.0.0|0|0']);
    t.ok(
      writes.every((chunk) => chunk.length === 1),
      'every control byte in a write of its own',
    );
  },
);
