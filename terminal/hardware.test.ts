import t, { type Test } from 'tap';
import { parseArgs } from 'node:util';
import { Link } from './protocol/link.js';
import { decodeMessage } from './protocol/svc/messages.js';
import {
  decodeResponse,
  encodeRequest,
  type RequestCode,
  type ResponseCode,
  type TransbankMessage,
} from './protocol/transbank/messages.js';
import { describeResponseCode } from './protocol/transbank/response-codes.js';
import { openPort } from './pty-pair.js';
import { waitFor } from '../server/testing/wait-for.js';

// Runs only against real hardware, with a command of its own (seconds, not the whole suite):
//   TERMINAL_TEST_PORT=/dev/ttyUSB0 npm run test:hardware                                  (svc terminal)
//   TERMINAL_TEST_PORT=/dev/ttyUSB0 TERMINAL_TEST_DIALECT=transbank npm run test:hardware  (a Transbank POS)
// Under npm test it is skipped without TERMINAL_TEST_PORT; under npm run
// test:hardware (HARDWARE_CHECK=1) a missing port fails, naming it.
// A Transbank POS is asked only what moves no money (poll, load keys, totals,
// last sale); with TERMINAL_TEST_SALE_AMOUNT=N it also sells N pesos, which a
// card on the POS must pay (and a refund of it is left to the operator).
const path = process.env.TERMINAL_TEST_PORT;
const { values } = parseArgs({ args: process.argv.slice(2), options: { dialect: { type: 'string' } }, strict: false });
const dialect = (values.dialect as string | undefined) ?? process.env.TERMINAL_TEST_DIALECT ?? 'svc';
const wanted = 'set TERMINAL_TEST_PORT to a serial port with a terminal attached';
const skip = path || process.env.HARDWARE_CHECK === '1' ? false : wanted;

async function line(t: Test) {
  const port = await openPort(path!);
  t.teardown(() => new Promise((resolve) => port.close(resolve)));
  const link = new Link(port);
  const answers: string[] = [];
  link.on('message', (payload: string) => answers.push(payload));
  return { link, answers };
}

if (!path && process.env.HARDWARE_CHECK === '1') {
  t.fail(`npm run test:hardware: ${wanted} (TERMINAL_TEST_PORT=/dev/ttyUSB0 npm run test:hardware)`);
} else if (dialect === 'transbank') {
  t.test('a real Transbank POS on TERMINAL_TEST_PORT: poll, load keys, totals, last sale', { skip }, async (t) => {
    const { link, answers } = await line(t);
    const ask = async (request: TransbankMessage<RequestCode>, expect: ResponseCode, timeoutMs = 10_000) => {
      answers.length = 0;
      await link.send(encodeRequest(request));
      await waitFor(
        () => answers.some((payload) => payload.startsWith(expect)),
        timeoutMs,
        `the POS to answer ${request.code} with ${expect}`,
      );
      return decodeResponse(answers.find((payload) => payload.startsWith(expect))!);
    };
    await link.send(encodeRequest({ code: '0100', fields: {} }));
    t.pass('the POS acknowledged the poll');
    const keys = await ask({ code: '0800', fields: {} }, '0810');
    t.equal(
      keys.fields.responseCode,
      '00',
      `load keys: ${describeResponseCode(String(keys.fields.responseCode), '0800')}`,
    );
    t.comment(`commerce ${String(keys.fields.commerceCode)}, terminal ${String(keys.fields.terminalId)}`);
    const totals = await ask({ code: '0700', fields: {} }, '0710');
    t.comment(`open batch: ${String(totals.fields.transactionCount)} sale(s), ${String(totals.fields.total)} CLP`);
    const last = await ask({ code: '0250', fields: {} }, '0260');
    t.ok(
      ['00', '11'].includes(String(last.fields.responseCode)),
      `last sale: ${describeResponseCode(String(last.fields.responseCode), '0250')}`,
    );
    const amount = Number(process.env.TERMINAL_TEST_SALE_AMOUNT ?? 0);
    if (amount > 0) {
      t.comment(`selling ${amount} CLP: pay it with a card on the POS`);
      const sale = await ask(
        { code: '0200', fields: { amount, ticket: 'HWTEST', sendStatus: false } },
        '0210',
        150_000,
      );
      t.comment(
        `sale: ${describeResponseCode(String(sale.fields.responseCode), '0200')}, authorization ${String(sale.fields.authorizationCode)}, operation ${String(sale.fields.operationNumber)}`,
      );
      t.match(sale.fields, { ticket: 'HWTEST', amount });
    }
  });
} else {
  t.test('a real terminal on TERMINAL_TEST_PORT answers the poll', { skip }, async (t) => {
    const { link, answers } = await line(t);
    await link.send('0100');
    await waitFor(() => answers.length > 0, 5000, 'the terminal to answer 0100');
    t.match(decodeMessage(answers[0]!), { code: '0110' });
  });
}
