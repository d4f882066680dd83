import { ProtocolError } from '../../errors.js';
// Packed BCD, the way ZVT carries numbers (amounts, trace and receipt
// numbers, dates, the terminal id, the password): two decimal digits a
// byte, the first in the high nibble.

/** `digits` (a string of 0-9, of even length) as packed BCD. */
export function packBcd(digits: string): Buffer {
  if (!/^\d*$/.test(digits) || digits.length % 2 !== 0)
    throw new ProtocolError('BCD_INVALID', `BCD takes an even number of decimal digits, got ${JSON.stringify(digits)}`);
  const pairs = digits.match(/../g) ?? [];
  return Buffer.from(pairs.map((pair) => (Number(pair[0]) << 4) | Number(pair[1])));
}

/** The digits of packed BCD; a nibble above 9 is an error (use `nibbles` for masked card numbers). */
export function unpackBcd(bytes: Uint8Array): string {
  const text = nibbles(bytes);
  if (!/^\d*$/.test(text)) throw new ProtocolError('BCD_INVALID', `not BCD: ${text}`);
  return text;
}

/** Every nibble as a hex digit, upper case ('E' masks a card digit, 'F' pads an odd count). */
export function nibbles(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex').toUpperCase();
}

/** A whole number as `bytes` bytes of BCD (an amount is 6, a trace number 3, a receipt number 2). */
export function bcdNumber(value: number, bytes: number): Buffer {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new ProtocolError('BCD_INVALID', `BCD holds whole numbers from 0, got ${value}`);
  const digits = String(value);
  if (digits.length > bytes * 2) throw new ProtocolError('BCD_INVALID', `${value} does not fit ${bytes} bytes of BCD`);
  return packBcd(digits.padStart(bytes * 2, '0'));
}

/** The number packed BCD holds. */
export function bcdValue(bytes: Uint8Array): number {
  return Number(unpackBcd(bytes) || '0');
}

/** The length prefix of an LL-var (2 bytes) or LLL-var (3 bytes) field: each byte F0-F9 carries one decimal digit. */
export function varLength(length: number, digits: 2 | 3): Buffer {
  const text = String(length);
  if (text.length > digits)
    throw new ProtocolError('BCD_INVALID', `${length} bytes do not fit a ${'L'.repeat(digits)}-var length`);
  return Buffer.from([...text.padStart(digits, '0')].map((digit) => 0xf0 | Number(digit)));
}

/** The length an LL-var or LLL-var prefix says; throws on a byte that is not F0-F9. */
export function readVarLength(prefix: Uint8Array): number {
  let length = 0;
  for (const byte of prefix) {
    if (byte >> 4 !== 0xf || (byte & 0x0f) > 9)
      throw new ProtocolError(
        'BCD_INVALID',
        `a variable length is F0-F9 a digit, got ${byte.toString(16).padStart(2, '0')}`,
      );
    length = length * 10 + (byte & 0x0f);
  }
  return length;
}
