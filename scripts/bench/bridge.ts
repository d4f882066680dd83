// npm run bench:bridge [-- --sales N] [--poll-ms N]
// The sale round trip through the bridge, per dialect: a merchant's order
// created on a real server (the compiled one, embedded store) until the
// server has it PAID, with an emulated device (card delay 0) on a socat
// pseudo-terminal pair and the bridge on the other end, one order at a
// time. Measured on the server's own clock (the order's createdAt to its
// PAID history entry). The reference in the same run: our link's bare
// 0100 → 0110 round trip on the same kind of line.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Bridge } from '../../terminal/bridge/bridge.js';
import { BridgeState } from '../../terminal/bridge/bridge-state.js';
import { SaleJournal } from '../../terminal/bridge/transbank/sale-journal.js';
import { svcDialect } from '../../terminal/bridge/svc/svc-dialect.js';
import { transbankDialect } from '../../terminal/bridge/transbank/transbank-dialect.js';
import { EmulatedTerminal } from '../../terminal/device/svc/emulated-terminal.js';
import { TransbankPos, TURNAROUND_MS } from '../../terminal/device/transbank/transbank-pos.js';
import { PosClient } from '../../contracts/clients/pos-client.js';
import { Link } from '../../terminal/protocol/link.js';
import { openSerial } from '../../terminal/serial-port.js';
import { PtyPair } from '../../terminal/pty-pair.js';
import type { SerialLine } from '../../terminal/bridge/bridge-options.js';
import { zvtDialect } from '../../terminal/bridge/zvt/zvt-dialect.js';
import { ZvtJournal } from '../../terminal/bridge/zvt/zvt-journal.js';
import { ZvtTerminal } from '../../terminal/device/zvt/zvt-terminal.js';
import { SerialZvtLine, TcpZvtLine } from '../../terminal/protocol/zvt/line.js';
import { json } from './pos-world.js';
import { endpointStream, nexoDialect } from '../../terminal/bridge/nexo/nexo-dialect.js';
import { NexoJournal } from '../../terminal/bridge/nexo/nexo-journal.js';
import { linkReference, nexoDiagnoses, nexoEmulated, zvtEnquiries, zvtListening } from './bridge-references.js';

const { values } = parseArgs({
  options: {
    sales: { type: 'string', default: '200' },
    'poll-ms': { type: 'string', default: '50' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  process.stdout.write(`usage: npm run bench:bridge -- [--sales N] [--poll-ms N]

Order PENDING → PAID on the server through the bridge and an emulated
device over a socat pair, one order at a time (default 200 sales, bridge
poll 50 ms, card delay 0), for the svc dialect and for the Transbank one
(with the POS's ${TURNAROUND_MS} ms turnaround the official SDK needs, and with 5 ms),
for ZVT over the pty (9600 8N2 framing) and over TCP on loopback, and for
nexo (an emulated Adyen terminal over HTTPS, encrypted); p50/p99 on the
server's clock, beside our link's bare 0100 → 0110 round trip, ZVT's bare
status enquiry and nexo's bare encrypted diagnosis over the same TLS
listener as the references. Needs socat.
`);
  process.exit(0);
}
const sales = Number(values.sales);
const pollMs = Number(values['poll-ms']);
if (!Number.isInteger(sales) || sales < 1 || !Number.isInteger(pollMs) || pollMs < 1) {
  process.stderr.write('bench:bridge: --sales and --poll-ms are whole numbers, at least 1\n');
  process.exit(2);
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

function startServer(dataDir: string): Promise<{ child: ChildProcess; baseUrl: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [here('../../server/main.js')], {
      env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({ child, baseUrl: url });
    });
    child.on('exit', (code) => reject(new Error(`the server exited with ${code}`)));
  });
}

const dir = mkdtempSync(join(tmpdir(), 'bench-bridge-'));
const server = await startServer(join(dir, 'data'));
const account = await json(`${server.baseUrl}/console/register`, 'POST', {
  email: 'bench-bridge@example.com',
  password: 'bench password',
});
const merchant = `${server.baseUrl}/api/v1/merchants/${account.merchant_id}`;
const token = account.key.token as string;

/** A pseudo-terminal pair in a directory of its own. */
async function ptyIn(name: string): Promise<PtyPair> {
  mkdirSync(join(dir, name), { recursive: true });
  const line = new PtyPair(join(dir, name));
  await line.start();
  return line;
}

/** One dialect's run: a fresh terminal and line, `sales` orders one at a time; the round trips in ms, sorted. */
async function run(
  name: string,
  serial: string,
  currency: string,
  attach: (
    line: PtyPair,
    client: PosClient,
    state: BridgeState,
  ) => Promise<{ device: () => Promise<void>; bridge: Bridge }>,
): Promise<number[]> {
  const secret = (await json(`${merchant}/pos-terminals`, 'POST', { serialNumber: serial }, token)).secret as string;
  const line = await ptyIn(serial);
  const state = await BridgeState.open(join(dir, serial, 'state'), serial);
  const { device, bridge } = await attach(
    line,
    new PosClient({ baseUrl: server.baseUrl, serialNumber: serial, secret }),
    state,
  );
  const running = bridge.run();
  const took: number[] = [];
  for (let i = 0; i < sales; i += 1) {
    const { data } = await json(
      `${merchant}/transactions`,
      'POST',
      { terminal: serial, amount: 1000 + i, currency },
      token,
    );
    for (;;) {
      const order = (await json(`${merchant}/transactions/${data.orderId}`, 'GET', undefined, token)).data;
      const paid = (order.history as Array<{ to: string; at: string }>).find((entry) => entry.to === 'PAID');
      if (paid) {
        took.push(Date.parse(paid.at) - Date.parse(order.createdAt));
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  await bridge.stop();
  await running;
  await device();
  await line.stop();
  process.stderr.write(`${name}: ${sales} sales\n`);
  return took.sort((a, b) => a - b);
}

try {
  const reference = await linkReference(await ptyIn('reference'));

  const closer = (port: { close: (callback: () => void) => void }) => () =>
    new Promise<void>((resolve) => port.close(() => resolve()));
  const svc = await run('svc', 'BENCH-SVC', 'USD', async (line, client, state) => {
    const port = await openSerial(line.device, 115200);
    new EmulatedTerminal({ serial: 'BENCH-SVC', autoApproveMs: 0 }).attach(new Link(port));
    return {
      device: closer(port),
      bridge: new Bridge({ dialect: svcDialect, open: () => openSerial(line.host, 115200), client, state, pollMs }),
    };
  });
  const transbank = (turnaroundMs: number) => async (line: PtyPair, client: PosClient, state: BridgeState) => {
    const port = await openSerial(line.device, 115200);
    new TransbankPos({ terminalId: 'BENCH001', cardDelayMs: 0, turnaroundMs }).attach(new Link(port));
    return {
      device: closer(port),
      bridge: new Bridge({
        dialect: transbankDialect({ journal: await SaleJournal.open(state.dir) }),
        open: () => openSerial(line.host, 115200),
        client,
        state,
        pollMs,
      }),
    };
  };
  const tbk = await run('transbank', 'BENCH-TBK', 'CLP', transbank(TURNAROUND_MS));
  const tbkFast = await run('transbank fast', 'BENCH-TBK5', 'CLP', transbank(5));

  // ZVT: the emulated terminal on the pty's far end, or listening on loopback; the bridge as its cash register.
  const zvtTerminal = () => new ZvtTerminal({ terminalId: '29001006', cardDelayMs: 0 });
  const zvtSerial = await run('zvt serial', 'BENCH-ZVT-S', 'EUR', async (line, client, state) => {
    const port = await openSerial(line.device, 9600, 2);
    zvtTerminal().attach(new SerialZvtLine(port));
    return {
      device: closer(port),
      bridge: new Bridge({
        dialect: zvtDialect({ journal: await ZvtJournal.open(state.dir), transport: 'serial' }),
        open: () => openSerial(line.host, 9600, 2),
        client,
        state,
        pollMs,
      }),
    };
  });
  const zvtTcp = await run('zvt tcp', 'BENCH-ZVT-T', 'EUR', async (_line, client, state) => {
    const terminal = await zvtListening(zvtTerminal());
    return {
      device: terminal.close,
      bridge: new Bridge({
        dialect: zvtDialect({ journal: await ZvtJournal.open(state.dir), transport: 'tcp' }),
        open: async () => (await terminal.open()) as SerialLine,
        client,
        state,
        pollMs,
      }),
    };
  });
  const enquiryLine = await ptyIn('zvt-reference');
  const enquiryDevice = await openSerial(enquiryLine.device, 9600, 2);
  zvtTerminal().attach(new SerialZvtLine(enquiryDevice));
  const zvtReferenceSerial = await zvtEnquiries(new SerialZvtLine(await openSerial(enquiryLine.host, 9600, 2)));
  await new Promise((resolve) => enquiryDevice.close(resolve));
  await enquiryLine.stop();
  const enquiryTcp = await zvtListening(zvtTerminal());
  const zvtReferenceTcp = await zvtEnquiries(new TcpZvtLine(await enquiryTcp.open()));
  await enquiryTcp.close();

  // nexo: an emulated Adyen terminal on its own loopback address, the bridge its cash register over HTTPS.
  const nexo = await run('nexo', 'BENCH-NEXO', 'EUR', async (_line, client, state) => {
    const terminal = await nexoEmulated(dir, '127.0.0.61');
    return {
      device: async () => {
        terminal.client.close();
        await terminal.listener.close();
      },
      bridge: new Bridge({
        dialect: nexoDialect({
          journal: await NexoJournal.open(state.dir),
          client: terminal.client,
          poiid: terminal.poiid,
          saleId: 'BENCH-NEXO',
        }),
        open: async () => (await endpointStream()) as SerialLine,
        client,
        state,
        pollMs,
      }),
    };
  });
  const nexoReference = await nexoDiagnoses(await nexoEmulated(dir, '127.0.0.62'));

  const row = (what: string, took: number[]) =>
    `| ${what} | ${took.length} | ${percentile(took, 50).toFixed(1)} | ${percentile(took, 99).toFixed(1)} |`;
  process.stdout.write(
    [
      `| over a socat pty, bridge poll ${pollMs} ms, card delay 0 | operations | p50 ms | p99 ms |`,
      '|---|---|---|---|',
      row('reference: our link, 0100 → 0110 (svc)', reference),
      row('svc: order PENDING → PAID (0300, record 0210, commit, 0270)', svc),
      row(`transbank: order PENDING → PAID (sale with status 78–82, commit), POS turnaround ${TURNAROUND_MS} ms`, tbk),
      row('transbank: the same, POS turnaround 5 ms', tbkFast),
      row('reference: ZVT status enquiry (05 01 → 80 00, 06 0F → 80 00), serial framing', zvtReferenceSerial),
      row('zvt serial: order PENDING → PAID (06 01, 04 FF, 04 0F journaled, 06 0F, commit)', zvtSerial),
      row('reference: ZVT status enquiry over TCP (loopback)', zvtReferenceTcp),
      row('zvt tcp: order PENDING → PAID, the same', zvtTcp),
      row('reference: nexo encrypted Diagnosis over HTTPS (keep-alive, loopback)', nexoReference),
      row('nexo: order PENDING → PAID (Payment journaled, encrypted, over HTTPS; commit)', nexo),
      '',
      `A Transbank sale answers after its five status messages and the answer, each no sooner than the turnaround after the last ACK: ${6 * TURNAROUND_MS} ms of the round trip at ${TURNAROUND_MS} ms.`,
      '',
    ].join('\n'),
  );
} finally {
  server.child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
