import { hasCode, ProtocolError } from '../../errors.js';
// ZVT's TLV container (PA00P015 §9.3), the data of bitmap 06: BER-TLV.
// A tag is one byte, or more when its low five bits are all set (each
// further byte with its high bit set says another follows); bit 0x20 of
// the first byte marks a constructed object, whose value is more objects.
// A length is one byte up to 127, 81 xx up to 255, 82 hi lo beyond.

export interface TlvObject {
  /** The tag as hex, upper case: "26", "1F04". */
  tag: string;
  value: Buffer;
  /** The objects inside a constructed one. */
  children?: TlvObject[];
}

export function berLength(length: number): Buffer {
  if (length < 0x80) return Buffer.of(length);
  if (length <= 0xff) return Buffer.of(0x81, length);
  if (length <= 0xffff) return Buffer.of(0x82, length >> 8, length & 0xff);
  throw new ProtocolError('TLV_INVALID', `a TLV length is at most 65535, got ${length}`);
}

/** Reads a BER length at `offset`: the length and how many bytes it took. */
export function readBerLength(bytes: Uint8Array, offset: number): { length: number; size: number } {
  const first = bytes[offset];
  if (first === undefined) throw new ProtocolError('TLV_INVALID', 'a length is missing');
  if (first < 0x80) return { length: first, size: 1 };
  if (first === 0x81) {
    if (offset + 1 >= bytes.length) throw new ProtocolError('TLV_INVALID', 'a length 81 xx is cut short');
    return { length: bytes[offset + 1]!, size: 2 };
  }
  if (first === 0x82) {
    if (offset + 2 >= bytes.length) throw new ProtocolError('TLV_INVALID', 'a length 82 hi lo is cut short');
    return { length: (bytes[offset + 1]! << 8) | bytes[offset + 2]!, size: 3 };
  }
  throw new ProtocolError('TLV_INVALID', `length byte ${first.toString(16)} is not defined`);
}

const isConstructed = (tag: string) => (parseInt(tag.slice(0, 2), 16) & 0x20) !== 0;

/**
 * The objects inside a constructed tag's value; none when the value is not TLV. Vendors use tags whose first
 * byte has the constructed bit for plain values (Feig's FF40, FF41 of change configuration, 08 13): kept whole,
 * such a value reads and re-encodes as sent.
 */
function childrenOf(value: Buffer): TlvObject[] | undefined {
  try {
    return decodeTlv(value);
  } catch (error) {
    if (hasCode(error, 'TLV_INVALID')) return undefined;
    throw error;
  }
}

/** The objects of a TLV container's value, constructed ones opened. */
export function decodeTlv(bytes: Uint8Array): TlvObject[] {
  const objects: TlvObject[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const tagStart = offset;
    if ((bytes[offset++]! & 0x1f) === 0x1f) {
      do {
        if (offset >= bytes.length) throw new ProtocolError('TLV_INVALID', 'a tag is cut short');
      } while (bytes[offset++]! & 0x80);
    }
    const tag = Buffer.from(bytes.subarray(tagStart, offset)).toString('hex').toUpperCase();
    const { length, size } = readBerLength(bytes, offset);
    offset += size;
    if (offset + length > bytes.length)
      throw new ProtocolError('TLV_INVALID', `tag ${tag} says ${length} bytes, ${bytes.length - offset} are left`);
    const value = Buffer.from(bytes.subarray(offset, offset + length));
    offset += length;
    const children = isConstructed(tag) ? childrenOf(value) : undefined;
    objects.push(children ? { tag, value, children } : { tag, value });
  }
  return objects;
}

/** A container's value from objects; a constructed one is written from its children when it has them. */
export function encodeTlv(objects: readonly TlvObject[]): Buffer {
  return Buffer.concat(
    objects.map(({ tag, value, children }) => {
      const body = children ? encodeTlv(children) : value;
      return Buffer.concat([Buffer.from(tag, 'hex'), berLength(body.length), body]);
    }),
  );
}

export const tlv = (tag: string, value: Uint8Array | string = Buffer.alloc(0)): TlvObject => ({
  tag,
  value: typeof value === 'string' ? Buffer.from(value, 'latin1') : Buffer.from(value),
});

export const constructed = (tag: string, children: TlvObject[]): TlvObject => ({
  tag,
  value: encodeTlv(children),
  children,
});

/** The first object with `tag`, searching constructed objects too. */
export function findTlv(objects: readonly TlvObject[] | undefined, tag: string): TlvObject | undefined {
  for (const object of objects ?? []) {
    if (object.tag === tag) return object;
    const inside = findTlv(object.children, tag);
    if (inside) return inside;
  }
  return undefined;
}
