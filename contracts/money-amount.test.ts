import { seededRandom as seeded } from './common/seeded-random.js';
import t from 'tap';
import { decimalPlaces, exactCents, hasAtMostDecimals } from './money-amount.js';

// The amount rule over the documented range, by generated amounts: every
// whole number of cents from 0.01 to 999,999,999.99 written as JSON is
// accepted and converts back to the same cents; a third decimal never is.

/** A uniform whole number of cents in [1, 99,999,999,999], half of them of every magnitude (log-uniform). */
function randomCents(random: () => number): number {
  const max = 99_999_999_999;
  if (random() < 0.5) return 1 + Math.floor(random() * max);
  return Math.max(1, Math.min(max, Math.floor(10 ** (random() * 11))));
}

const EDGE_CENTS = [
  1,
  10,
  99,
  100,
  101,
  999,
  57214683,
  1677721601,
  839752794,
  123456789,
  99_999_999_999,
  99_999_999_990,
  2 ** 53 / 2 ** 20,
];

t.test(
  'every amount with at most 2 decimals in the documented range is accepted, and its cents are exact',
  async (t) => {
    const random = seeded(27);
    let refused = 0;
    let wrongCents = 0;
    const count = 200_000;
    for (let i = 0; i < count + EDGE_CENTS.length; i += 1) {
      const cents = i < EDGE_CENTS.length ? EDGE_CENTS[i]! : randomCents(random);
      const amount = JSON.parse(JSON.stringify(cents / 100)) as number; // as a client writes it and the server reads it
      if (!hasAtMostDecimals(amount, 2)) refused += 1;
      else if (exactCents(amount) !== cents) wrongCents += 1;
    }
    t.equal(refused, 0, `${count} generated amounts and ${EDGE_CENTS.length} edges: none refused`);
    t.equal(wrongCents, 0, 'each converts to exactly its cents');
  },
);

t.test('amounts the old floating multipleOf refused are two-decimal amounts', async (t) => {
  for (const amount of [1234567.89, 572146.83, 16777216.01, 8397527.94, 0.07, 999999999.99]) {
    t.ok(hasAtMostDecimals(amount, 2), `${amount}`);
    t.equal(exactCents(amount), Math.round(amount * 100));
  }
});

t.test('a third decimal, however small, is refused', async (t) => {
  const random = seeded(7);
  for (let i = 0; i < 20_000; i += 1) {
    const mills = 1 + Math.floor(random() * 999_999_999_999);
    if (mills % 10 === 0) continue;
    const amount = JSON.parse(JSON.stringify(mills / 1000)) as number;
    if (hasAtMostDecimals(amount, 2)) t.fail(`${amount} accepted`);
  }
  for (const amount of [0.001, 1.005, 0.015, 1e-7, 123456789.123, 5e-324, 0.1 + 0.2])
    t.notOk(hasAtMostDecimals(amount, 2), `${amount} refused`);
  t.throws(() => exactCents(1.005), RangeError);
});

t.test('decimal places read the shortest text, exponents included', async (t) => {
  t.equal(decimalPlaces(12), 0);
  t.equal(decimalPlaces(12.5), 1);
  t.equal(decimalPlaces(1e21), 0);
  t.equal(decimalPlaces(1.5e-7), 8);
  t.equal(decimalPlaces(-0.25), 2);
  t.equal(decimalPlaces(Number.NaN), Number.POSITIVE_INFINITY);
  t.equal(exactCents(1e21 / 1e13), 10_000_000_000);
  t.equal(exactCents(-12.3), -1230);
});

t.test(
  'the document carries no floating multipleOf; its money fields carry x-decimal-places, which the validator applies exactly',
  async (t) => {
    const { openApiDocument } = await import('./openapi.js');
    const { SchemaValidator } = await import('./validator.js');
    const text = JSON.stringify(openApiDocument);
    t.notMatch(text, /"multipleOf"/, 'no multipleOf anywhere in the document');
    const request = openApiDocument.components!.schemas!.SessionCreateRequest as {
      properties: Record<string, Record<string, unknown>>;
    };
    t.equal(request.properties.amount_reference!['x-decimal-places'], 2);
    const validator = new SchemaValidator(openApiDocument);
    const schema = { $ref: '#/components/schemas/SessionCreateRequest' };
    const body = (amount: number) => ({ agreement_id: 'agr_1', amount_reference: amount });
    t.same(validator.check(schema, body(1234567.89)), [], '1234567.89 passes');
    t.same(validator.check(schema, body(16777216.01)), [], '16777216.01 passes');
    t.same(validator.check(schema, body(1234567.891)), [
      { pointer: '/amount_reference', message: 'must have at most 2 decimal places' },
    ]);
  },
);

t.test('exactCents at its edges: exponents, zero, negatives, and amounts too large to count', async (t) => {
  t.throws(
    () => exactCents(1e21),
    { name: 'RangeError', message: '1e+21 is too large to count in cents' },
    'written with an exponent, and past 2^53 cents',
  );
  t.throws(() => exactCents(1e17), { message: /too large to count in cents/ });
  t.equal(
    exactCents(9_007_199_254_740.99),
    900_719_925_474_099,
    'a 15-digit amount, far past the documented range, still exact',
  );
  t.throws(() => exactCents(0.125), { name: 'RangeError', message: '0.125 has more than 2 decimal places' });
  t.ok(Object.is(exactCents(0), 0), 'zero is +0, not -0');
  t.equal(exactCents(-0.05), -5);
  t.equal(exactCents(7), 700);
  t.equal(exactCents(7.5), 750);
});
