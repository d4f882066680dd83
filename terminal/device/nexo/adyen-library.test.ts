import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { Client as AdyenClient, Types } from '@adyen/api-library';
import { startCli } from '../../testing/cli-io.js';
import { ManualTimers } from '../../protocol/timers.js';
import { terminalTls } from './certificates.js';
import { listenNexo } from './nexo-listener.js';
import { NexoTerminal } from './nexo-terminal.js';

// The judge: Adyen's own Node library (@adyen/api-library), as a cash
// register uses it, against `svc-terminal emulate --dialect nexo`: every
// message encrypted through TerminalLocalAPI trusting the emulator's
// ca.pem, plaintext through TerminalLocalAPIUnencrypted, the cloud shape
// through TerminalCloudAPI. Each emulator gets its own loopback address:
// the library always posts to port 8443, as to a real terminal's.

type TerminalApiRequest = Types.terminal.TerminalApiRequest;
type TerminalApiResponse = Types.terminal.TerminalApiResponse;
const require = createRequire(import.meta.url);
// The library is CommonJS whose names Node's ESM loader cannot see: required as a cash register's code would.
const { Client, Config, EnvironmentEnum, TerminalCloudAPI, TerminalLocalAPI } =
  require('@adyen/api-library') as typeof import('@adyen/api-library');
type Client = AdyenClient;
const TerminalLocalAPIUnencrypted = (
  require('@adyen/api-library/lib/src/services/terminalLocalAPIUnencrypted.js') as {
    default: new (client: Client) => { request(request: TerminalApiRequest): Promise<TerminalApiResponse> };
  }
).default;

const POIID = 'V400m-324688179';
const KEY = {
  KeyIdentifier: 'CryptoKeyIdentifier12345',
  KeyVersion: 1,
  AdyenCryptoVersion: 1,
  Passphrase: 'p@ssw0rd123456',
};

async function emulator(t: Test, host: string, extra: string[] = ['--card-delay', '100ms']) {
  const dir = mkdtempSync(join(tmpdir(), 'nexo-'));
  const passphrase = join(dir, 'passphrase');
  writeFileSync(passphrase, `${KEY.Passphrase}\n`, { mode: 0o600 });
  const apiKey = join(dir, 'api-key');
  writeFileSync(apiKey, 'AQE_test_key\n', { mode: 0o600 });
  const run = startCli([
    'emulate',
    '--dialect',
    'nexo',
    '--listen',
    host,
    '--poiid',
    POIID,
    '--key-identifier',
    KEY.KeyIdentifier,
    '--key-version',
    String(KEY.KeyVersion),
    '--passphrase-file',
    passphrase,
    '--tls-dir',
    join(dir, 'tls'),
    '--api-key-file',
    apiKey,
    '--state',
    join(dir, 'terminal.json'),
    ...extra,
  ]);
  while (!run.out().includes('listening')) {
    if (run.err()) throw new Error(run.err());
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  t.teardown(() => run.stop());
  return { run, ca: join(dir, 'tls', 'ca.pem'), dir };
}

function clientFor(host: string, ca: string, apiKey = 'AQE_test_key'): Client {
  const config = new Config({
    environment: EnvironmentEnum.TEST,
    apiKey,
    certificatePath: ca,
    terminalApiLocalEndpoint: `https://${host}`,
  });
  return new Client(config);
}

let service = 0;
function request(category: string, body: Record<string, unknown>, serviceId = `S${++service}`): TerminalApiRequest {
  return {
    SaleToPOIRequest: {
      MessageHeader: {
        ProtocolVersion: '3.0',
        MessageClass: 'Service',
        MessageCategory: category,
        MessageType: 'Request',
        SaleID: 'POS-1',
        ServiceID: serviceId,
        POIID,
      },
      [`${category}Request`]: body,
    },
  } as unknown as TerminalApiRequest;
}

const payment = (amount: number, extra: Record<string, unknown> = {}) => ({
  SaleData: { SaleTransactionID: { TransactionID: `order-${amount}`, TimeStamp: new Date().toISOString() } },
  PaymentTransaction: { AmountsReq: { Currency: 'EUR', RequestedAmount: amount } },
  ...extra,
});

t.test("every message, encrypted, through TerminalLocalAPI and the emulator's root", async (t) => {
  const host = '127.0.0.21';
  const { ca } = await emulator(t, host, ['--card-delay', '100ms']);
  const api = new TerminalLocalAPI(clientFor(host, ca));
  const send = (req: TerminalApiRequest) => api.request(req, KEY as Types.terminal.SecurityKey);

  const diagnosis = await send(request('Diagnosis', { HostDiagnosisFlag: true }));
  t.equal(diagnosis.SaleToPOIResponse?.DiagnosisResponse?.Response.Result, 'Success');
  t.equal(diagnosis.SaleToPOIResponse?.DiagnosisResponse?.POIStatus?.GlobalStatus, 'OK');
  t.equal(diagnosis.SaleToPOIResponse?.MessageHeader.MessageType, 'Response');

  const paid = await send(request('Payment', payment(12.5), 'PAY1'));
  const paidBody = paid.SaleToPOIResponse!.PaymentResponse!;
  t.equal(paid.SaleToPOIResponse?.MessageHeader.ServiceID, 'PAY1', 'the ServiceID is echoed');
  t.equal(paidBody.Response.Result, 'Success');
  t.equal(paidBody.PaymentResult?.AmountsResp?.AuthorizedAmount, 12.5);
  t.match(paidBody.POIData.POITransactionID.TransactionID, /^[a-z0-9]+\.\d{16}$/, 'tender reference . PSP reference');
  t.match(paidBody.PaymentResult?.PaymentInstrumentData?.CardData?.MaskedPan, /\*\*\*\* \d{4}$/);
  t.ok(paidBody.PaymentReceipt && paidBody.PaymentReceipt.length === 2, 'the cashier and customer receipts');
  t.match(paidBody.Response.AdditionalResponse, /pspReference=\d{16}/);

  const refused = await send(request('Payment', payment(1.24)));
  t.equal(refused.SaleToPOIResponse?.PaymentResponse?.Response.Result, 'Failure');
  t.equal(refused.SaleToPOIResponse?.PaymentResponse?.Response.ErrorCondition, 'Refusal');
  t.match(
    refused.SaleToPOIResponse?.PaymentResponse?.Response.AdditionalResponse,
    /refusalReason=210\+Not\+enough\+balance/,
  );
  const wrongPin = await send(request('Payment', payment(11.34)));
  t.equal(wrongPin.SaleToPOIResponse?.PaymentResponse?.Response.ErrorCondition, 'WrongPIN');

  const status = await send(
    request('TransactionStatus', {
      MessageReference: { MessageCategory: 'Payment', SaleID: 'POS-1', ServiceID: 'PAY1' },
    }),
  );
  const repeated = status.SaleToPOIResponse?.TransactionStatusResponse;
  t.equal(repeated?.Response.Result, 'Success');
  t.equal(
    repeated?.RepeatedMessageResponse?.RepeatedResponseMessageBody?.PaymentResponse?.POIData.POITransactionID
      .TransactionID,
    paidBody.POIData.POITransactionID.TransactionID,
    'the original response, repeated',
  );
  const again = await send(
    request('TransactionStatus', {
      MessageReference: { MessageCategory: 'Payment', SaleID: 'POS-1', ServiceID: 'PAY1' },
    }),
  );
  t.same(
    again.SaleToPOIResponse?.TransactionStatusResponse?.RepeatedMessageResponse,
    repeated?.RepeatedMessageResponse,
    'the same each time',
  );
  const never = await send(
    request('TransactionStatus', {
      MessageReference: { MessageCategory: 'Payment', SaleID: 'POS-1', ServiceID: 'NEVER' },
    }),
  );
  t.equal(never.SaleToPOIResponse?.TransactionStatusResponse?.Response.ErrorCondition, 'NotFound');

  const reversal = (amount?: number) =>
    send(
      request('Reversal', {
        OriginalPOITransaction: {
          POITransactionID: {
            TransactionID: paidBody.POIData.POITransactionID.TransactionID,
            TimeStamp: new Date().toISOString(),
          },
        },
        ReversalReason: 'MerchantCancel',
        ...(amount !== undefined ? { ReversedAmount: amount } : {}),
      }),
    );
  const partial = await reversal(2.5);
  t.equal(partial.SaleToPOIResponse?.ReversalResponse?.Response.Result, 'Success');
  t.equal(partial.SaleToPOIResponse?.ReversalResponse?.ReversedAmount, 2.5);
  const beyond = await reversal(10.01);
  t.equal(
    beyond.SaleToPOIResponse?.ReversalResponse?.Response.ErrorCondition,
    'NotAllowed',
    'never beyond what was paid',
  );
  t.equal((await reversal()).SaleToPOIResponse?.ReversalResponse?.ReversedAmount, 10, 'the rest');

  const refund = await send(request('Payment', payment(4, { PaymentData: { PaymentType: 'Refund' } })));
  t.equal(refund.SaleToPOIResponse?.PaymentResponse?.Response.Result, 'Success', 'an unreferenced refund');

  const recon = await send(request('Reconciliation', { ReconciliationType: 'SaleReconciliation' }));
  const totals = recon.SaleToPOIResponse?.ReconciliationResponse;
  t.equal(totals?.Response.Result, 'Success');
  t.match(totals?.POIReconciliationID, /^\d+$/);
  const eur = totals?.TransactionTotals?.find((entry) => entry.PaymentCurrency === 'EUR');
  const byType = Object.fromEntries((eur?.PaymentTotals ?? []).map((entry) => [entry.TransactionType, entry]));
  t.same(
    {
      debit: [byType.Debit?.TransactionCount, byType.Debit?.TransactionAmount],
      credit: [byType.Credit?.TransactionCount, byType.Credit?.TransactionAmount],
      reverse: [byType.ReverseDebit?.TransactionCount, byType.ReverseDebit?.TransactionAmount],
    },
    { debit: [1, 12.5], credit: [1, 4], reverse: [2, 12.5] },
    'payments, refunds and reversals counted by type',
  );
  const next = await send(request('Reconciliation', { ReconciliationType: 'SaleReconciliation' }));
  t.same(next.SaleToPOIResponse?.ReconciliationResponse?.TransactionTotals, [], "the period's totals restart");
  t.not(next.SaleToPOIResponse?.ReconciliationResponse?.POIReconciliationID, totals?.POIReconciliationID);

  const format = await send(request('Payment', payment(1), 'MUCH-TOO-LONG-SERVICE'));
  t.equal(
    format.SaleToPOIResponse?.PaymentResponse?.Response.ErrorCondition,
    'MessageFormat',
    'a ServiceID over 10 characters',
  );
});

t.test('a wrong key is a crypto error, and the terminal keeps serving', async (t) => {
  const host = '127.0.0.22';
  const { ca } = await emulator(t, host);
  const api = new TerminalLocalAPI(clientFor(host, ca));
  await t.rejects(
    api.request(request('Diagnosis', {}), { ...KEY, Passphrase: 'not-the-passphrase' } as Types.terminal.SecurityKey),
    /crypto error \(3\)/,
  );
  const ok = await api.request(request('Diagnosis', {}), KEY as Types.terminal.SecurityKey);
  t.equal(ok.SaleToPOIResponse?.DiagnosisResponse?.Response.Result, 'Success');
});

t.test('a certificate from another root is refused by the library', async (t) => {
  const host = '127.0.0.23';
  await emulator(t, host);
  const other = await emulator(t, '127.0.0.24');
  const api = new TerminalLocalAPI(clientFor(host, other.ca));
  await t.rejects(api.request(request('Diagnosis', {}), KEY as Types.terminal.SecurityKey));
});

t.test('plaintext through TerminalLocalAPIUnencrypted; refused with --require-encryption', async (t) => {
  const lenient = '127.0.0.25';
  const strict = '127.0.0.26';
  await emulator(t, lenient);
  await emulator(t, strict, ['--card-delay', '100ms', '--require-encryption']);
  const plain = new TerminalLocalAPIUnencrypted(clientFor(lenient, 'unencrypted'));
  const paid = await plain.request(request('Payment', payment(5)));
  t.equal(paid.SaleToPOIResponse?.PaymentResponse?.Response.Result, 'Success');
  const refused = await new TerminalLocalAPIUnencrypted(clientFor(strict, 'unencrypted')).request(
    request('Payment', payment(5)),
  );
  t.equal(refused.SaleToPOIResponse?.PaymentResponse?.Response.ErrorCondition, 'MessageFormat');
  t.match(
    refused.SaleToPOIResponse?.PaymentResponse?.Response.AdditionalResponse,
    /cleartext\+allowed\+for\+testing\+only/,
  );
});

t.test('the cloud shape: TerminalCloudAPI.sync with its X-API-Key', async (t) => {
  const host = '127.0.0.27';
  const { ca } = await emulator(t, host);
  const client = clientFor(host, ca);
  client.config.terminalApiCloudEndpoint = `https://${host}:8443`;
  const cloud = new TerminalCloudAPI(client);
  const paid = await cloud.sync(request('Payment', payment(7.77)));
  t.equal(paid.SaleToPOIResponse?.PaymentResponse?.Response.Result, 'Success');
  const wrongKey = clientFor(host, ca, 'wrong');
  wrongKey.config.terminalApiCloudEndpoint = `https://${host}:8443`;
  await t.rejects(new TerminalCloudAPI(wrongKey).sync(request('Diagnosis', {})), /401|Unauthorized/);
});

t.test(
  "a payment held at the card, on the test's clock: Busy for another, InProgress, then Abort ends it",
  async (t) => {
    // The card never comes until the test's clock moves: what arrives meanwhile does not race a real delay, however
    // busy the machine (it once did: on a loaded CI run the abort came after an 800 ms card).
    const host = '127.0.0.24';
    const dir = mkdtempSync(join(tmpdir(), 'nexo-held-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const tls = terminalTls(join(dir, 'tls'), POIID, host);
    const timers = new ManualTimers();
    const listening = await listenNexo(host, 8443, {
      terminal: new NexoTerminal({ poiid: POIID, cardDelayMs: 60_000, timers }),
      key: { keyIdentifier: KEY.KeyIdentifier, keyVersion: KEY.KeyVersion, passphrase: KEY.Passphrase },
      tls,
    });
    t.teardown(() => listening.close());
    const api = new TerminalLocalAPI(clientFor(host, tls.caPath));
    const send = (req: TerminalApiRequest) => api.request(req, KEY as Types.terminal.SecurityKey);
    const slow = send(request('Payment', payment(30), 'SLOW'));
    while (timers.armed === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const busy = await send(request('Payment', payment(31)));
    t.equal(busy.SaleToPOIResponse?.PaymentResponse?.Response.ErrorCondition, 'Busy');
    const running = await send(
      request('TransactionStatus', {
        MessageReference: { MessageCategory: 'Payment', SaleID: 'POS-1', ServiceID: 'SLOW' },
      }),
    );
    t.equal(running.SaleToPOIResponse?.TransactionStatusResponse?.Response.ErrorCondition, 'InProgress');
    const aborted = await send(
      request('Abort', {
        AbortReason: 'MerchantAbort',
        MessageReference: { MessageCategory: 'Payment', SaleID: 'POS-1', ServiceID: 'SLOW' },
      }),
    );
    t.same(aborted, {}, 'an Abort is answered with an empty 200');
    const slowEnd = await slow;
    t.equal(slowEnd.SaleToPOIResponse?.PaymentResponse?.Response.ErrorCondition, 'Aborted');
    t.equal(timers.armed, 0, 'the card it waited for is no longer awaited');
  },
);
