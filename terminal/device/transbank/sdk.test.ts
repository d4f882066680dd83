import t, { type Test } from 'tap';
import sdk, { type Status } from 'transbank-pos-sdk';
import { Link } from '../../protocol/link.js';
import { describeResponseCode, REJECTION_CODES } from '../../protocol/transbank/response-codes.js';
import { openPort, PtyPair, socatSkip } from '../../pty-pair.js';
import { TransbankPos } from './transbank-pos.js';

// The official cash-register SDK (transbank-pos-sdk, npm) drives our
// emulated POS over a real pseudo-terminal pair: every operation of the
// public reference, and every field the SDK parses compared with what the
// emulator meant. The SDK is the client a team writing a cash register
// uses; it was not written for us.

const CARD_DELAY_MS = 300;
const { POSIntegrado } = sdk;

async function setup(t: Test) {
  const line = new PtyPair(t.testdir());
  await line.start();
  const log: string[] = [];
  const pos = new TransbankPos({
    terminalId: 'TBK00001',
    commerceCode: '597012345678',
    statePath: `${t.testdirName}/pos.json`,
    cardDelayMs: CARD_DELAY_MS,
    log: (entry) => log.push(entry),
  });
  const devicePort = await openPort(line.device);
  pos.attach(new Link(devicePort));
  const register = new POSIntegrado();
  register.setDebug(false);
  // The SDK arms its answer timer on every send and clears it only when an answer comes: after an
  // ACK-only command (poll) it would keep the process alive for its default 150 s.
  register.posTimeout = 3000;
  await register.connect(line.host); // polls the POS on open: resolves only on its ACK
  t.teardown(async () => {
    await register.disconnect();
    if (devicePort.isOpen) await new Promise((resolve) => devicePort.close(resolve));
    await line.stop();
  });
  return { pos, register, log, line };
}

t.test('the official SDK against the emulated Transbank POS', { skip: socatSkip() }, async (t) => {
  const { pos, register, log, line } = await setup(t);
  const reconnect = async () => {
    await register.disconnect();
    await register.connect(line.host);
  };

  t.test('poll and load keys', async (t) => {
    t.equal(await register.poll(), true, 'a poll is answered by the ACK');
    t.match(await register.loadKeys(), {
      functionCode: 810,
      responseCode: 0,
      commerceCode: 597012345678,
      terminalId: 'TBK00001',
      successful: true,
      responseMessage: 'Aprobado',
    });
  });

  t.test('a sale without status messages: every field the SDK reads', async (t) => {
    const sale = await register.sale(15_000, 'T00001');
    const kept = pos.snapshot.lastSale!;
    t.match(sale, {
      functionCode: 210,
      responseCode: 0,
      successful: true,
      commerceCode: 597012345678,
      terminalId: 'TBK00001',
      ticket: 'T00001',
      authorizationCode: kept.authorizationCode,
      amount: 15_000,
      last4Digits: Number(kept.last4Digits),
      operationNumber: kept.operationNumber,
      cardType: 'CR',
      cardBrand: 'VI',
      realDate: kept.realDate,
      realTime: kept.realTime,
      tip: null,
    });
    t.match(kept.authorizationCode, /^\d{6}$/);
    t.equal(kept.operationNumber, '000001');
  });

  t.test('a sale with status messages: 78, 79, 80, 81, 82 in order, then the answer', async (t) => {
    const seen: Status[] = [];
    const sale = await register.sale(2_500, 7, true, (status) => seen.push(status));
    t.same(
      seen.map((status) => status.responseCode),
      [78, 79, 80, 81, 82],
    );
    t.equal(seen[0]!.responseMessage, 'Esperando Leer Tarjeta', 'the SDK names each status from its own table');
    t.match(sale, { successful: true, ticket: '000007', amount: 2500, operationNumber: '000002' });
  });

  t.test("a multicode sale answers 0271 with the provider's commerce code", async (t) => {
    const sale = await register.multicodeSale(4_000, 'M1', '597099999999');
    t.match(sale, {
      functionCode: 271,
      successful: true,
      ticket: '0000M1',
      amount: 4000,
      change: '0',
      commerceCode: '597099999999',
      operationNumber: '000003',
    });
  });

  t.test('the last sale is the multicode one', async (t) => {
    const last = await register.getLastSale();
    t.match(last, { functionCode: 260, successful: true, ticket: '0000M1', amount: 4000, operationNumber: '000003' });
  });

  t.test(
    "the multicode last sale (0280) and detail (0290), through the SDK's own transport (it has no method of its own for them)",
    async (t) => {
      // Read as the .NET and Python SDKs read them: split on "|", the voucher at 19, the change at 20, the provider at 21.
      const withVoucher = (await register.send('0280|1')).split('|');
      t.same(
        [
          withVoucher[0],
          withVoucher[1],
          withVoucher[4],
          withVoucher[6],
          withVoucher[10],
          withVoucher[20],
          withVoucher[21],
        ],
        ['0281', '00', '0000M1', '4000', '000003', '0', '597099999999'],
      );
      t.match(withVoucher[19], /^COMPROBANTE|\s+COMPROBANTE DE VENTA/, 'the voucher, in 40-character lines');
      t.equal(withVoucher[19]!.length % 40, 0);
      const bare = (await register.send('0280|0')).split('|');
      t.same([bare[19], bare[20], bare[21]], ['', '0', '597099999999'], 'without the voucher');
      // A detail's frames: the SDK's send resolves on the first one (it knows 0261 only as a detail line).
      const first = (await register.send('0290|1|')).split('|');
      t.same(
        [first[0], first[1], first[4], first[19], first[20]],
        ['0291', '00', 'T00001', '0', '0'],
        'the first sale, not multicode: provider 0',
      );
      await pos.idle(); // the rest of the detail, which the SDK ACKs unread, before the next request
      t.match(
        log.at(-1),
        /^cash register 0290\|1\| → 0291\|00\|.* ; 0291\|00\|.* ; 0291\|00\|.* ; 0291\|00\|597012345678\|TBK00001\|+$/,
        'every sale of the batch, then the end',
      );
      await reconnect();
    },
  );

  t.test('each rejection a cash register must handle comes back as the SDK reports it', async (t) => {
    for (const code of ['01', '02', '04', '05', '07', '08', '09', '11', '13', '74', '77', '26']) {
      t.ok((REJECTION_CODES as readonly string[]).includes(code), `${code} is a rejection the emulator can answer`);
      const refused = await register.sale(Number(code), `R${code}`);
      t.match(
        refused,
        {
          functionCode: 210,
          responseCode: Number(code),
          successful: false,
          ticket: `000R${code}`,
          authorizationCode: '',
        },
        describeResponseCode(code, '0200'),
      );
      t.type(refused.responseMessage, 'string', 'a code the SDK knows');
    }
    t.equal(pos.snapshot.batch.length, 3, 'a refused sale is not in the batch');
  });

  t.test('the operator chooses the next outcome: a debit sale, which cannot be refunded (08)', async (t) => {
    t.match(pos.operator('next debit'), /approved, debit/);
    const debit = await register.sale(9_990, 'D1');
    t.match(debit, { successful: true, cardType: 'DB', cardBrand: 'DB', operationNumber: '000004' });
    t.match(debit.accountingDate, /^\d{6}$/);
    t.match(await register.refund(4), { functionCode: 1210, responseCode: 8, successful: false });
  });

  t.test('a refund by operation number, once: a second answers 04, an unknown number 05', async (t) => {
    const refund = await register.refund(1);
    t.match(refund, {
      functionCode: 1210,
      responseCode: 0,
      successful: true,
      commerceCode: 597012345678,
      terminalId: 'TBK00001',
      operationId: '000005',
    });
    t.equal(refund.authorizationCode, pos.snapshot.batch[0]!.authorizationCode);
    t.match(await register.refund(1), { responseCode: 4, successful: false });
    t.match(await register.refund(999), { responseCode: 5, successful: false });
  });

  t.test('totals count the sales still standing; the detail lists every sale of the batch', async (t) => {
    t.match(await register.getTotals(), {
      functionCode: 710,
      responseCode: 0,
      txCount: 3,
      txTotal: 2_500 + 4_000 + 9_990,
      successful: true,
    });
    const detail = (await register.salesDetail(false)) as Array<{
      ticket: string;
      amount: string;
      operationNumber: string;
      authorizationCode: string | null;
    }>;
    t.same(
      detail.map((sale) => [sale.ticket, sale.amount, sale.operationNumber]),
      [
        ['T00001', '15000', '000001'],
        ['000007', '2500', '000002'],
        ['0000M1', '4000', '000003'],
        ['0000D1', '9990', '000004'],
      ],
    );
    // SDK 4.0.0 keeps waiting after a detail sent to the cash register (its send ends only on a frame other
    // than 0261, and the reference ends a detail with a 0261 of empty fields): a cash register reconnects.
    await reconnect();
    t.equal(await register.salesDetail(true), true, 'printed on the POS: the SDK resolves on the ACK');
  });

  t.test('the close answers 0510 and empties the batch; the totals start again', async (t) => {
    t.match(await register.closeDay(), {
      functionCode: 510,
      responseCode: 0,
      commerceCode: 597012345678,
      terminalId: 'TBK00001',
      successful: true,
    });
    t.match(await register.getTotals(), { txCount: 0, txTotal: 0 });
    t.same(await register.salesDetail(false), [], 'an empty detail');
    await reconnect();
    t.equal(pos.snapshot.closes, 1);
  });

  t.test(
    'change to normal POS: ACKed, and the terminal stops answering the cash register until its operator switches back',
    async (t) => {
      t.equal(await register.changeToNormalMode(), true);
      await pos.idle();
      t.equal(pos.snapshot.mode, 'normal');
      t.match(pos.operator('integrated'), /integrated mode/);
      t.match(await register.getTotals(), { successful: true });
    },
  );

  t.test('the emulator logged each request and its answer', async (t) => {
    t.ok(
      log.some((entry) =>
        /^cash register 0200\|000015000\|T00001\|\|\|0 → 0210\|00\|597012345678\|TBK00001\|T00001\|\d{6}\|15000\|/.test(
          entry,
        ),
      ),
      log.find((entry) => entry.includes('0200|000015000')) ?? 'no such line',
    );
  });
});
