import { createServer, connect, type Socket } from 'node:net';
import t, { type Test } from 'tap';
import { SerialPortMock } from 'serialport';
import { ManualTimers } from '../timers.js';
import { apdu, encodeApdu, type Apdu } from './apdu.js';
import { LineError } from '../../errors.js';
import { SerialZvtLine, TcpZvtLine } from './line.js';
import { ACK, encodeSerialFrame, NAK } from './serial-frame.js';

let portNumber = 0;
async function serialLine(t: Test) {
  const path = `/dev/ZVTMOCK${++portNumber}`;
  SerialPortMock.binding.createPort(path, { record: true });
  const port = new SerialPortMock({ path, baudRate: 9600 });
  await new Promise<void>((resolve, reject) => port.on('open', resolve).on('error', reject));
  const timers = new ManualTimers();
  const line = new SerialZvtLine(port, { timers });
  const received: Apdu[] = [];
  line.on('apdu', (message: Apdu) => received.push(message));
  const settle = async () => {
    for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
  };
  const written = () => Buffer.from(port.port!.recording);
  const clearWritten = () => (port.port!.recording = Buffer.alloc(0));
  const incoming = async (bytes: Buffer | number[]) => {
    port.port!.emitData(Buffer.from(bytes));
    await settle();
  };
  t.teardown(async () => {
    if (port.isOpen) await new Promise((resolve) => port.close(resolve));
    SerialPortMock.binding.reset();
  });
  return { line, timers, settle, written, clearWritten, incoming, received };
}

const completion = apdu(0x06, 0x0f);
const declined = apdu(0x06, 0x1e, Buffer.of(0x10));

t.test('serial: a frame is taken on its ACK; a NAK has it sent again, three tries in all', async (t) => {
  const { line, settle, written, clearWritten, incoming } = await serialLine(t);
  const taken = line.send(completion);
  await settle();
  t.same(written(), encodeSerialFrame(encodeApdu(completion)));
  await incoming([ACK]);
  await taken;
  clearWritten();
  const refused = line.send(declined);
  await settle();
  await incoming([NAK]);
  await incoming([NAK]);
  t.same(written(), Buffer.concat([0, 1, 2].map(() => encodeSerialFrame(encodeApdu(declined)))), 'repeated twice');
  const failed = t.rejects(refused, /transmission error: NAK, after 3 tries/);
  await incoming([NAK]);
  await failed;
});

t.test('serial: no ACK within T2 (5 s): sent again, then a transmission error', async (t) => {
  const { line, timers, settle, written, incoming } = await serialLine(t);
  const lost = line.send(completion);
  await settle();
  timers.advance(4999);
  await settle();
  t.equal(written().length, 9, 'not yet repeated');
  timers.advance(1);
  await settle();
  t.equal(written().length, 18, 'repeated at T2');
  timers.advance(5000);
  await settle();
  const failed = t.rejects(lost, LineError);
  timers.advance(5000);
  await failed;
  await incoming([ACK]); // late: nothing to take it
});

t.test(
  'serial: received frames are ACKed and worked once; a repeat after a lost ACK is ACKed, not worked twice',
  async (t) => {
    const { incoming, written, received, clearWritten, line } = await serialLine(t);
    const frame = encodeSerialFrame(encodeApdu(declined));
    await incoming(frame);
    t.same(written(), Buffer.of(ACK));
    t.same(received, [declined], 'the 0x10 unstuffed');
    clearWritten();
    await incoming(frame); // our ACK was lost: the terminal repeats
    t.same(written(), Buffer.of(ACK), 'ACKed again');
    t.equal(received.length, 1, 'not worked twice');
    // After a frame of ours, the same bytes are a new message.
    const sent = line.send(apdu(0x80, 0x00));
    await incoming([ACK]);
    await sent;
    await incoming(frame);
    t.equal(received.length, 2);
  },
);

t.test('serial: a bad CRC and a frame cut by more than T1 are NAKed; a frame split within T1 is taken', async (t) => {
  const { incoming, written, received, clearWritten, timers } = await serialLine(t);
  const frame = encodeSerialFrame(encodeApdu(completion));
  const corrupt = Buffer.from(frame);
  corrupt[corrupt.length - 1]! ^= 0x55;
  await incoming(corrupt);
  t.same(written(), Buffer.of(NAK), 'a bad CRC');
  clearWritten();
  await incoming(frame.subarray(0, 4));
  timers.advance(150);
  await incoming(frame.subarray(4));
  t.same(written(), Buffer.of(ACK), 'split within T1');
  t.equal(received.length, 1);
  clearWritten();
  await incoming(frame.subarray(0, 4));
  timers.advance(200);
  await new Promise((resolve) => setImmediate(resolve));
  t.same(written(), Buffer.of(NAK), 'T1 passed');
  t.equal(received.length, 1);
});

t.test('serial: a frame whose length field disagrees with its APDU is NAKed, not worked', async (t) => {
  const { incoming, written, received } = await serialLine(t);
  await incoming(encodeSerialFrame(Buffer.from('060105040000000001', 'hex')));
  t.same(written(), Buffer.of(NAK));
  t.equal(received.length, 0);
});

async function tcpPair(t: Test) {
  const timers = new ManualTimers();
  let accepted!: Socket;
  const server = createServer((socket) => (accepted = socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = connect((server.address() as { port: number }).port, '127.0.0.1');
  await new Promise((resolve) => client.once('connect', resolve));
  while (!accepted) await new Promise((resolve) => setImmediate(resolve));
  const line = new TcpZvtLine(accepted, { timers });
  const received: Apdu[] = [];
  line.on('apdu', (message: Apdu) => received.push(message));
  t.teardown(async () => {
    client.destroy();
    accepted.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  const until = async (condition: () => boolean) => {
    while (!condition()) await new Promise((resolve) => setTimeout(resolve, 2));
  };
  return { line, client, received, timers, until };
}

t.test('TCP: APDUs coalesced in one write and one split byte by byte all arrive', async (t) => {
  const { client, received, until } = await tcpPair(t);
  const two = Buffer.concat([encodeApdu(completion), encodeApdu(declined)]);
  client.write(two);
  await until(() => received.length === 2);
  t.same(received, [completion, declined], 'no DLE doubling on TCP');
  for (const byte of encodeApdu(apdu(0x06, 0xd3, Buffer.alloc(400, 0x41)))) {
    client.write(Buffer.of(byte));
    await new Promise((resolve) => setImmediate(resolve));
  }
  await until(() => received.length === 3);
  t.equal(received[2]!.data.length, 400, 'an extended length, a byte a write');
});

t.test('TCP: the rest of an APDU that does not come within T3 ends the connection', async (t) => {
  const { client, line, timers } = await tcpPair(t);
  const closed = new Promise<Error>((resolve) => line.once('close', resolve));
  client.write(encodeApdu(declined).subarray(0, 2));
  await new Promise((resolve) => setTimeout(resolve, 20));
  timers.advance(5000);
  t.match(await closed, /did not come within T3/);
});
