// INTERFACE.md §9: a frame is STX payload ETX LRC, LRC = XOR of every payload
// byte and ETX. The payload is printable ASCII, at most 1024 bytes.
import { ACK, ETX, NAK, STX } from './control-bytes.js';
import { ProtocolError } from '../errors.js';
export { ACK, ETX, NAK, STX };

export const MAX_PAYLOAD = 1024;

export function lrc(payload: Buffer): number {
  let value = ETX;
  for (const byte of payload) value ^= byte;
  return value;
}

export function isPrintable(payload: Buffer): boolean {
  return payload.every((byte) => byte >= 0x20 && byte <= 0x7e);
}

export function encodeFrame(payload: string): Buffer {
  const bytes = Buffer.from(payload); // anything beyond ASCII becomes bytes over 0x7e, refused below
  if (!isPrintable(bytes)) throw new ProtocolError('FRAME_INVALID', 'a payload is printable ASCII only');
  if (bytes.length > MAX_PAYLOAD)
    throw new ProtocolError('FRAME_INVALID', `a payload is at most ${MAX_PAYLOAD} bytes, got ${bytes.length}`);
  return Buffer.concat([Buffer.of(STX), bytes, Buffer.of(ETX, lrc(bytes))]);
}

/** Hex like `02 30 32 …`, for logs a hardware engineer can read. */
export function hex(bytes: Buffer): string {
  return [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join(' ');
}
