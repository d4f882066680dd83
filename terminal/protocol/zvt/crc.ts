// The checksum of a ZVT serial frame (PA00P016 §3.3). The document calls it
// "CRC-XModem" with the polynomial x^16 + x^15 + x^10 + x^3, yet terminals
// and cash-register libraries compute the bit-reflected form of it: a
// CRC-16 with the reflected polynomial 0x8408, initial value 0, over the
// APDU as it is (without the stuffed DLEs) followed by ETX. It is sent low
// byte first, and its two bytes are never stuffed.

const TABLE = Uint16Array.from({ length: 256 }, (_, byte) => {
  let value = byte;
  for (let bit = 0; bit < 8; bit++) value = value & 1 ? (value >>> 1) ^ 0x8408 : value >>> 1;
  return value;
});

/** The CRC of `bytes`, as a 16-bit number. */
export function crc16(bytes: Uint8Array, initial = 0): number {
  let crc = initial;
  for (const byte of bytes) crc = (crc >>> 8) ^ TABLE[(crc ^ byte) & 0xff]!;
  return crc;
}

const ETX = 0x03;

/** The two checksum bytes of a frame carrying `apdu`, low byte first. */
export function frameChecksum(apdu: Uint8Array): Buffer {
  const crc = crc16(Buffer.of(ETX), crc16(apdu));
  return Buffer.of(crc & 0xff, crc >>> 8);
}
