import t from 'tap';
import { waitFor } from '../../../server/testing/wait-for.js';
import { runCli, startCli } from '../../testing/cli-io.js';

// svc-terminal zvt against the emulated terminal over TCP: each flow it
// emulates, sent with amounts of the test's own, read back in words.

t.test('svc-terminal zvt: a sale, a pre-authorisation booked in part, a reversal, an end of day', async (t) => {
  const emulator = startCli([
    'emulate',
    '--dialect',
    'zvt',
    '--listen',
    '127.0.0.1:0',
    '--serial',
    '29001006',
    '--card-delay',
    '0ms',
  ]);
  t.teardown(() => emulator.stop());
  await waitFor(() => /listening on 127\.0\.0\.1:\d+/.test(emulator.out()), 10_000, 'the emulator');
  const host = /listening on (127\.0\.0\.1:\d+)/.exec(emulator.out())![1]!;
  const zvt = (...words: string[]) => runCli(['zvt', '--host', host, ...words]);

  const sale = await zvt('pay', '12.50');
  t.equal(sale.code, 0, sale.err);
  t.match(sale.out, /status information: result 00 \(approved\), amount 1250, trace 1, receipt 1/);
  t.match(sale.out, /^pay: completed: 06 0F$/m);

  const reserved = await zvt('preauth', '50.00');
  t.match(reserved.out, /result 00 \(approved\), amount 5000, trace 2, receipt 2/);
  t.match((await zvt('open-reservations')).out, /open-reservations: first open receipt 2/);
  const booked = await zvt('book', '2', '23.45');
  t.match(booked.out, /amount 2345, trace 3, receipt 3, original trace 2/, 'booked, naming the reservation');
  t.match((await zvt('open-reservations')).out, /open-reservations: none open/);

  const reversed = await zvt('reverse', '1');
  t.match(reversed.out, /amount 1250, trace 4, receipt 4, original trace 1/);
  const again = await zvt('reverse', '1');
  t.equal(again.code, 1, 'a second reversal of the same receipt fails');
  t.match(again.out, /result B4/);

  const declined = await zvt('pay', '0.05');
  t.equal(declined.code, 1);
  t.match(declined.out, /^pay: aborted: 06 1E 05$/m, 'a decline, with its result code');

  const day = await zvt('end-of-day');
  t.match(day.out, /amount 2345, trace \d+, end of day: 1 transaction\(s\)/, "the day's total is the booking alone");

  t.equal((await zvt('pay', 'twelve')).code, 2, 'an amount that is not one: a usage error');
  t.equal((await zvt('dance')).code, 2);
  const nobody = await runCli(['zvt', '--host', '127.0.0.1:1', 'status']);
  t.equal(nobody.code, 3, 'nothing at the address: exit 3');
});
