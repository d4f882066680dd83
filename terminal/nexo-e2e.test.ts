import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { merchantWithTerminal, startTestServer } from '../server/testing/test-server.js';
import { waitFor } from '../server/testing/wait-for.js';
import { startCli } from './testing/cli-io.js';
import { merchantReads } from './testing/merchant-reads.js';

// `svc-terminal bridge --dialect nexo` as the cash register of
// `svc-terminal emulate --dialect nexo`, both as a user starts them: EUR
// orders to PAID (a refused amount stays PENDING until retry), a void to
// VOIDED by a reversal, a close to one reconciliation and one settlement,
// and an answer the terminal drops paid once, from its TransactionStatus.

const POIID = 'P400Plus-275039202';

async function world(t: Test, host: string, emulateExtra: string[] = []) {
  const server = await startTestServer(t);
  // The bridge signs with the wall clock, as it does in a shop: the server's clock is set to it.
  server.clock.set(Date.now());
  const merchant = await merchantWithTerminal(server);
  const dir = mkdtempSync(join(tmpdir(), 'nexo-e2e-'));
  const passphrase = join(dir, 'passphrase');
  writeFileSync(passphrase, 'correct horse battery staple\n', { mode: 0o600 });
  const key = ['--key-identifier', 'SvcKey', '--key-version', '2', '--passphrase-file', passphrase];
  const terminal = startCli([
    'emulate',
    '--dialect',
    'nexo',
    '--listen',
    host,
    '--poiid',
    POIID,
    ...key,
    '--tls-dir',
    join(dir, 'tls'),
    '--card-delay',
    '50ms',
    '--state',
    join(dir, 'terminal.json'),
    ...emulateExtra,
  ]);
  await waitFor(
    async () => terminal.out().includes('listening') || terminal.err() !== '',
    10_000,
    'the terminal listening',
  );
  t.equal(terminal.err(), '', 'the emulator started');
  t.teardown(() => {
    if (!t.passing()) t.comment(`terminal said:\n${terminal.out()}${terminal.err()}`);
    return terminal.stop();
  });
  const startBridge = () => {
    const run = startCli(
      [
        'bridge',
        '--dialect',
        'nexo',
        '--host',
        host,
        '--poiid',
        POIID,
        ...key,
        '--ca',
        join(dir, 'tls', 'ca.pem'),
        '--serial',
        merchant.serialNumber,
        '--base-url',
        server.baseUrl,
        '--state',
        join(dir, 'bridge'),
        '--poll',
        '50ms',
        '--answer-timeout',
        '2s',
      ],
      { ...process.env, SVC_TERMINAL_SECRET: merchant.secret },
    );
    t.teardown(() => {
      if (!t.passing()) t.comment(`bridge said:\n${run.out()}${run.err()}`);
      return run.stop();
    });
    return run;
  };
  return { server, merchant, dir, terminal, startBridge, ...merchantReads(server, merchant) };
}

t.test('orders PAID, a refusal held for retry, a void VOIDED, a close one settlement', async (t) => {
  const { merchant, order, voidOrder, settlements, startBridge, terminal, dir } = await world(t, '127.0.0.31');
  const bridge = startBridge();
  await merchant.createOrder({ orderId: 'nexo-1', amount: 2500, currency: 'EUR' });
  await merchant.createOrder({ orderId: 'nexo-2', amount: 1990, currency: 'EUR' });
  await merchant.createOrder({ orderId: 'nexo-refused', amount: 1124, currency: 'EUR' });
  await waitFor(
    async () => (await order('nexo-1')).status === 'PAID' && (await order('nexo-2')).status === 'PAID',
    20_000,
    'both orders PAID',
  );
  const paid = await order('nexo-1');
  t.match(paid, { status: 'PAID', amount: 2500, history: [{ from: 'PENDING', to: 'PAID', actor: 'pos' }] });
  t.match(paid.authorizationCode, /^\d{16}$/, "the PSP reference of the terminal's POITransactionID");
  await waitFor(async () => bridge.out().includes('nexo-refused declined'), 10_000, 'the refusal');
  t.equal((await order('nexo-refused')).status, 'PENDING', 'a refused payment stays PENDING');

  t.equal((await voidOrder('nexo-1')).status, 200);
  await waitFor(async () => (await order('nexo-1')).status === 'VOIDED', 20_000, 'the void VOIDED by a reversal');

  bridge.type('close');
  await waitFor(async () => (await settlements()).length === 1, 20_000, 'one settlement');
  t.match(await settlements(), [{ batchNumber: 'B0001', transactionCount: 3, currencyReference: 'EUR' }]);
  terminal.type('status');
  await waitFor(async () => terminal.out().includes('0 transaction(s) in it'), 5000, 'the period restarted');
  const journal = () =>
    JSON.parse(readFileSync(join(dir, 'bridge', encodeURIComponent(merchant.serialNumber), 'nexo.json'), 'utf8'));
  await waitFor(async () => journal().outbox.length === 0, 5000, 'every record delivered');
  t.equal(bridge.err(), '', 'nothing held');
});

t.test('an answer the terminal drops is paid once, from its TransactionStatus', async (t) => {
  const { merchant, order, startBridge, dir } = await world(t, '127.0.0.32', ['--drop-answer', '1']);
  const bridge = startBridge();
  await merchant.createOrder({ orderId: 'nexo-dropped', amount: 4200, currency: 'EUR' });
  await waitFor(async () => (await order('nexo-dropped')).status === 'PAID', 20_000, 'PAID');
  t.match(bridge.out(), /its outcome, from the terminal's status/);
  const terminalState = JSON.parse(readFileSync(join(dir, 'terminal.json'), 'utf8'));
  const payments = Object.values(terminalState.services as Record<string, { category: string }>).filter(
    (service) => service.category === 'Payment',
  );
  t.equal(payments.length, 1, 'the terminal ran one payment');
  t.equal(terminalState.totals.EUR.Debit.count, 1);
});
