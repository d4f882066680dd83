import { seededRandom } from '../../common/seeded-random.js';

// ${gen.…}: values a scenario leaves to the run, drawn from its seed, so
// the same --seed gives the same amounts, emails and batch numbers (and,
// with `jitterMs`, the same delays). Each use draws the next value.

export interface Generated {
  /** A whole amount in minor units, 100 to 99,999. */
  readonly amount: number;
  /** An amount with two decimals, 1.00 to 999.99 (a session's amount_reference). */
  readonly decimalAmount: number;
  /** A batch number, 1 to 999,999. */
  readonly batchNumber: number;
  /** An address under example.com. */
  readonly email: string;
  /** Six digits, as text. */
  readonly digits: string;
}

export function generatedValues(seed: number): { values: Generated; jitter: (upToMs: number) => number } {
  const random = seededRandom(seed);
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const values: Generated = {
    get amount() {
      return between(100, 99_999);
    },
    get decimalAmount() {
      return between(100, 99_999) / 100;
    },
    get batchNumber() {
      return between(1, 999_999);
    },
    get email() {
      return `payer-${between(0, 0xffffff).toString(16).padStart(6, '0')}@example.com`;
    },
    get digits() {
      return String(between(0, 999_999)).padStart(6, '0');
    },
  };
  return { values, jitter: (upToMs) => (upToMs > 0 ? between(0, upToMs) : 0) };
}
