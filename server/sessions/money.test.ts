import t from 'tap';
import { commissionCents, creditsSummary, publicCredit, splitCredits, toCents } from './money.js';

t.test('the commission is 1 % of each credit, rounded half-up to the cent', async (t) => {
  const cases: Array<[number, number]> = [
    [0, 0],
    [49, 0], // 0.49 cents
    [50, 1], // 0.50 cents rounds up
    [149, 1],
    [150, 2], // 1.5 cents rounds up
    [151, 2],
    [10_000, 100],
    [12_345, 123], // 123.45 cents
    [12_350, 124], // 123.5 cents rounds up
  ];
  for (const [gross, commission] of cases) t.equal(commissionCents(gross), commission, `${gross} cents`);
});

t.test('amounts convert to cents exactly, including values binary floats cannot hold', async (t) => {
  t.equal(toCents(0.3), 30);
  t.equal(toCents(1234567.89), 123456789, 'a value whose double times 100 is not a whole number');
  // 0.1 + 0.2 is 0.30000000000000004: not an amount with two decimals, so never rounded to one on a guess.
  t.throws(() => toCents(0.1 + 0.2), RangeError);
  t.equal(toCents(19.99), 1999);
  t.equal(toCents(1_000_000_000), 100_000_000_000);
});

t.test('split credits: one per partner and the owner takes the rest', async (t) => {
  const credits = splitCredits(
    10_000,
    [
      { partner_id: 'p1', amount_cents: 3_333 },
      { partner_id: 'p2', amount_cents: 2_500 },
    ],
    'owner',
    'credited',
  );
  t.same(
    credits.map((c) => [c.receiver_id, c.receiver_type, c.gross_cents, c.commission_cents, c.net_cents]),
    [
      ['p1', 'partner', 3_333, 33, 3_300],
      ['p2', 'partner', 2_500, 25, 2_475],
      ['owner', 'owner', 4_167, 42, 4_125],
    ],
  );
  t.same(creditsSummary(credits), { gross_amount: 100, commissions: 1, net_amount: 99, total_credits: 3 });
  t.same(
    splitCredits(500, [], 'owner', 'failed').map((c) => c.status),
    ['failed'],
    'without split the owner is the one receiver',
  );
  t.throws(() => splitCredits(100, [{ partner_id: 'p', amount_cents: 101 }], 'owner', 'credited'));
});

t.test('property: for random distributions the credits add up and each commission rounds half-up', async (t) => {
  let seed = 42;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let run = 0; run < 500; run += 1) {
    const total = 1 + random(10_000_000);
    const partners = random(6);
    const distribution = [];
    let left = total;
    for (let i = 0; i < partners; i += 1) {
      const amount = random(left + 1);
      distribution.push({ partner_id: `p${i}`, amount_cents: amount });
      left -= amount;
    }
    const credits = splitCredits(total, distribution, 'owner', 'credited');
    const ok =
      credits.length === partners + 1 &&
      credits.reduce((s, c) => s + c.gross_cents, 0) === total &&
      credits.every(
        (c) =>
          c.commission_cents * 100 <= c.gross_cents + 50 &&
          c.gross_cents + 50 < (c.commission_cents + 1) * 100 &&
          c.net_cents === c.gross_cents - c.commission_cents,
      );
    if (!ok) {
      t.fail(`run ${run}: ${JSON.stringify({ total, distribution, credits })}`);
      return;
    }
    const summary = creditsSummary(credits);
    if (Math.round((summary.commissions + summary.net_amount) * 100) !== total) {
      t.fail(`run ${run}: summary does not add up`);
      return;
    }
  }
  t.pass('500 random distributions hold every invariant');
});

t.test(
  'a split distribution equal to the whole amount is allowed: the partner gets it all, the owner nothing; one cent more is refused',
  async (t) => {
    const credits = splitCredits(12_345, [{ partner_id: 'p1', amount_cents: 12_345 }], 'owner', 'credited');
    t.same(
      credits.map((c) => [c.receiver_id, c.gross_cents, c.commission_cents, c.net_cents]),
      [
        ['p1', 12_345, 123, 12_222],
        ['owner', 0, 0, 0],
      ],
    );
    t.throws(() => splitCredits(12_345, [{ partner_id: 'p1', amount_cents: 12_346 }], 'owner', 'credited'), /exceeds/);
  },
);

t.test("a credit is answered in the currency's units, exactly, with its receiver and status", async (t) => {
  t.same(
    publicCredit({
      receiver_id: 'ptn_1',
      receiver_type: 'partner',
      gross_cents: 123_456_789,
      commission_cents: 1_234_568,
      net_cents: 122_222_221,
      status: 'credited',
    }),
    {
      receiver_id: 'ptn_1',
      receiver_type: 'partner',
      gross_amount: 1_234_567.89,
      commission: 12_345.68,
      net_amount: 1_222_222.21,
      status: 'credited',
    },
  );
  t.same(
    publicCredit({
      receiver_id: 'acc_1',
      receiver_type: 'owner',
      gross_cents: 1,
      commission_cents: 0,
      net_cents: 1,
      status: 'failed',
    }),
    {
      receiver_id: 'acc_1',
      receiver_type: 'owner',
      gross_amount: 0.01,
      commission: 0,
      net_amount: 0.01,
      status: 'failed',
    },
  );
});
