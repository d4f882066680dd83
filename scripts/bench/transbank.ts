// npm run bench:transbank [-- --sales N]
// The official Transbank cash-register SDK (transbank-pos-sdk) against our
// emulated POS Integrado over a socat pseudo-terminal pair: operations per
// second for poll, totals and sales (card delay 0), and the sale round trip
// p50/p99, beside a reference measured in the same run on the same line:
// our own link layer's bare request/answer (0100 → 0110, svc dialect).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import sdk from 'transbank-pos-sdk';
import { EmulatedTerminal } from '../../terminal/device/svc/emulated-terminal.js';
import { TransbankPos, TURNAROUND_MS } from '../../terminal/device/transbank/transbank-pos.js';
import { Link } from '../../terminal/protocol/link.js';
import { openSerial } from '../../terminal/serial-port.js';
import { PtyPair } from '../../terminal/pty-pair.js';

const { values } = parseArgs({
  options: { sales: { type: 'string', default: '50' }, help: { type: 'boolean', short: 'h' } },
});
if (values.help) {
  process.stdout.write(`usage: npm run bench:transbank -- [--sales N]

The official SDK drives the emulated Transbank POS (card delay 0, the
${TURNAROUND_MS} ms line turnaround the SDK needs kept) over a socat pair:
poll, totals and N sales (default 50), as operations per second and the
sale round trip p50/p99; beside our link layer's bare 0100 → 0110 round
trip on the same kind of line, as the reference. Needs socat.
`);
  process.exit(0);
}
const sales = Number(values.sales);
if (!Number.isInteger(sales) || sales < 1) {
  process.stderr.write('bench:transbank: --sales must be a whole number, at least 1\n');
  process.exit(2);
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function timed(count: number, work: (i: number) => Promise<unknown>): Promise<number[]> {
  const took: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    await work(i);
    took.push(performance.now() - started);
  }
  return took.sort((a, b) => a - b);
}

const dir = mkdtempSync(join(tmpdir(), 'bench-transbank-'));
const line = new PtyPair(dir);
try {
  await line.start();
  // The reference: our own link, host and svc device, on this line.
  const svcPort = await openSerial(line.device, 115200);
  const svcDevice = new EmulatedTerminal({ serial: 'REF-1' });
  svcDevice.attach(new Link(svcPort));
  const hostPort = await openSerial(line.host, 115200);
  const host = new Link(hostPort);
  let answered: (() => void) | null = null;
  host.on('message', () => answered?.());
  const reference = await timed(
    200,
    () => new Promise<void>((resolve) => ((answered = resolve), void host.send('0100'))),
  );
  host.close();
  await new Promise((resolve) => hostPort.close(resolve));
  await new Promise((resolve) => svcPort.close(resolve));

  const posPort = await openSerial(line.device, 115200);
  const pos = new TransbankPos({ terminalId: 'BENCH001', cardDelayMs: 0 });
  pos.attach(new Link(posPort));
  const register = new sdk.POSIntegrado();
  register.posTimeout = 10_000;
  await register.connect(line.host);
  const polls = await timed(50, () => register.poll());
  const totals = await timed(50, () => register.getTotals());
  const sold = await timed(sales, (i) => register.sale(1000 + i, `B${i}`));
  await register.disconnect();
  await new Promise((resolve) => posPort.close(resolve));

  const rate = (took: number[]) => (1000 / (took.reduce((sum, each) => sum + each, 0) / took.length)).toFixed(1);
  const row = (name: string, took: number[]) =>
    `| ${name} | ${took.length} | ${rate(took)} | ${percentile(took, 50).toFixed(1)} | ${percentile(took, 99).toFixed(1)} |`;
  process.stdout.write(
    [
      '| over a socat pty | operations | per second | p50 ms | p99 ms |',
      '|---|---|---|---|---|',
      row('reference: our link, 0100 → 0110 (svc)', reference),
      row('SDK poll (ACK only)', polls),
      row('SDK totals (0700 → 0710)', totals),
      row('SDK sale, card delay 0 (0200 → 0210)', sold),
      '',
      `The POS answers no sooner than ${TURNAROUND_MS} ms after its ACK (the SDK reads packets by 100 ms of silence), so an answered operation costs at least that.`,
      '',
    ].join('\n'),
  );
} finally {
  await line.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
