import { createServer, connect, type Socket } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { NexoClient } from '../../terminal/bridge/nexo/nexo-client.js';
import { EcrSession } from '../../terminal/bridge/zvt/ecr-session.js';
import { terminalTls } from '../../terminal/device/nexo/certificates.js';
import { listenNexo } from '../../terminal/device/nexo/nexo-listener.js';
import { NexoTerminal } from '../../terminal/device/nexo/nexo-terminal.js';
import { EmulatedTerminal } from '../../terminal/device/svc/emulated-terminal.js';
import type { ZvtTerminal } from '../../terminal/device/zvt/zvt-terminal.js';
import { Link } from '../../terminal/protocol/link.js';
import { TcpZvtLine, type ZvtLine } from '../../terminal/protocol/zvt/line.js';
import { command } from '../../terminal/protocol/zvt/messages.js';
import type { PtyPair } from '../../terminal/pty-pair.js';
import { openSerial } from '../../terminal/serial-port.js';

// The references of bench:bridge, measured in the same run as the sales:
// each dialect's bare exchange on the same kind of line, with no server
// and no bridge (our link's 0100 → 0110, ZVT's status enquiry, nexo's
// encrypted Diagnosis), and the emulated devices the runs attach to.

/** Our own link's bare 0100 → 0110 round trip, host and svc device on a pty, 200 times; ms, sorted. */
export async function linkReference(referenceLine: PtyPair): Promise<number[]> {
  const devicePort = await openSerial(referenceLine.device, 115200);
  new EmulatedTerminal({ serial: 'REF-1' }).attach(new Link(devicePort));
  const hostPort = await openSerial(referenceLine.host, 115200);
  const host = new Link(hostPort);
  let answered: (() => void) | null = null;
  host.on('message', () => answered?.());
  const reference: number[] = [];
  for (let i = 0; i < 200; i += 1) {
    const started = performance.now();
    await new Promise<void>((resolve) => ((answered = resolve), void host.send('0100')));
    reference.push(performance.now() - started);
  }
  reference.sort((a, b) => a - b);
  host.close();
  await new Promise((resolve) => hostPort.close(resolve));
  await new Promise((resolve) => devicePort.close(resolve));
  await referenceLine.stop();
  return reference;
}

/** The ZVT terminal listening on loopback: a way to open a connection to it, and to close it all. */
export async function zvtListening(terminal: ZvtTerminal) {
  const sockets = new Set<Socket>();
  const listener = createServer((socket) => {
    sockets.add(socket);
    terminal.attach(new TcpZvtLine(socket));
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const port = (listener.address() as { port: number }).port;
  return {
    open: () =>
      new Promise<Duplex>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => resolve(socket));
        socket.once('error', reject);
      }),
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}

/** ZVT's bare exchange: a status enquiry (05 01 → 80 00, 06 0F → 80 00) on a line, 200 times. */
export async function zvtEnquiries(line: ZvtLine): Promise<number[]> {
  const ecr = new EcrSession(() => undefined);
  ecr.attach(line);
  const took: number[] = [];
  for (let i = 0; i < 200; i += 1) {
    const started = performance.now();
    await ecr.transact(command('statusEnquiry'), true);
    took.push(performance.now() - started);
  }
  line.close();
  return took.sort((a, b) => a - b);
}

const nexoKey = { keyIdentifier: 'BenchKey', keyVersion: 1, passphrase: 'bench passphrase' };
/** An emulated Adyen terminal on its own loopback address, and an encrypting client of it. */
export async function nexoEmulated(dir: string, host: string) {
  const poiid = 'V400m-100000001';
  const tls = terminalTls(join(dir, `tls-${host}`), poiid, host);
  const listener = await listenNexo(host, 8443, {
    terminal: new NexoTerminal({ poiid, cardDelayMs: 0 }),
    key: nexoKey,
    tls,
  });
  return { poiid, listener, client: new NexoClient({ host, port: 8443, ca: tls.ca, key: nexoKey }) };
}

/** nexo's bare exchange: an encrypted Diagnosis over the same kind of listener, 200 times. */
export async function nexoDiagnoses(
  nexoReferenceTerminal: Awaited<ReturnType<typeof nexoEmulated>>,
): Promise<number[]> {
  const nexoReference: number[] = [];
  for (let i = 0; i < 200; i += 1) {
    const started = performance.now();
    await nexoReferenceTerminal.client.send(
      {
        header: {
          ProtocolVersion: '3.0',
          MessageClass: 'Service',
          MessageCategory: 'Diagnosis',
          MessageType: 'Request',
          ServiceID: `D${i}`,
          SaleID: 'BENCH',
          POIID: nexoReferenceTerminal.poiid,
        },
        body: { HostDiagnosisFlag: false },
      },
      10_000,
    );
    nexoReference.push(performance.now() - started);
  }
  nexoReference.sort((a, b) => a - b);
  nexoReferenceTerminal.client.close();
  await nexoReferenceTerminal.listener.close();
  return nexoReference;
}
