// Money in the interface is a JSON number of currency units with at most
// two decimals (INTERFACE.md §5). A floating `multipleOf: 0.01` cannot judge
// that: 1234567.89 / 0.01 is not a whole number in binary floating point,
// so a validator either refuses valid amounts or needs a tolerance that
// also lets wrong ones through. The rule here reads the number's shortest
// decimal text instead, the digits JSON.parse was given for any amount
// with at most 17 significant digits, and converts to integer cents from
// those digits, with no floating arithmetic.

/** The schema keyword that carries the rule in the OpenAPI document. */
export const DECIMAL_PLACES_KEYWORD = 'x-decimal-places';

/** Decimal places of the shortest text that reads back as `value` (`1e-7` has 7, `1.5e3` none). */
export function decimalPlaces(value: number): number {
  if (!Number.isFinite(value)) return Number.POSITIVE_INFINITY;
  const text = String(Math.abs(value));
  const [mantissa, exponentText] = text.split('e');
  const fraction = mantissa!.split('.')[1] ?? '';
  const exponent = exponentText === undefined ? 0 : Number(exponentText);
  return Math.max(0, fraction.length - exponent);
}

/** True for a finite number written with at most `places` decimals. */
export function hasAtMostDecimals(value: number, places: number): boolean {
  return decimalPlaces(value) <= places;
}

/** An amount's integer cents, exactly; throws for one with more than two decimals. */
export function exactCents(amount: number): number {
  if (!hasAtMostDecimals(amount, 2)) throw new RangeError(`${amount} has more than 2 decimal places`);
  const text = String(Math.abs(amount));
  const [mantissa, exponentText] = text.split('e');
  const exponent = exponentText === undefined ? 0 : Number(exponentText);
  const [whole, fraction = ''] = mantissa!.split('.');
  // Shift the decimal point two places right (plus the exponent) on the digits themselves.
  const digits = `${whole}${fraction}`;
  // At most two decimals (checked above), so the point lands at or past the last digit: pad with zeros.
  const point = whole!.length + exponent + 2;
  const cents = Number(digits + '0'.repeat(point - digits.length));
  if (!Number.isSafeInteger(cents)) throw new RangeError(`${amount} is too large to count in cents`);
  return amount < 0 ? -cents : cents;
}
