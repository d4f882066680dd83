import type { Card } from './zvt-state.js';

// The cards customers present to an emulated terminal: a few schemes, a
// PAN of which only the last four digits are shown ('E' masks the rest, as
// terminals send it), an expiry three years on, and a 6-digit
// authorisation code as the authorisation attribute (bitmap 3B).

const SCHEMES: ReadonlyArray<Omit<Card, 'maskedPan' | 'expiry'>> = [
  { type: 10, name: 'VISA' },
  { type: 6, name: 'Mastercard' },
  { type: 5, name: 'girocard' },
];

const digits = (random: () => number, count: number) =>
  Array.from({ length: count }, () => Math.floor(random() * 10)).join('');

export function drawCard(random: () => number, now: Date): Card & { aid: string } {
  const scheme = SCHEMES[Math.floor(random() * SCHEMES.length)]!;
  const year = String((now.getUTCFullYear() + 3) % 100).padStart(2, '0');
  const month = String(now.getUTCMonth() + 1).padStart(2, '0');
  return {
    ...scheme,
    maskedPan: `${'E'.repeat(12)}${digits(random, 4)}`,
    expiry: `${year}${month}`,
    aid: digits(random, 6),
  };
}
