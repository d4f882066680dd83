import { berLength, decodeTlv, readBerLength, type TlvObject } from './tlv.js';
import { readVarLength, varLength } from './bcd.js';

// Bitmaps (PA00P015 §13): a data field prefixed with its number. Each has
// a fixed length, an LL-var or LLL-var length (F0-F9 digits), or, for 06,
// a BER length (a TLV container). A receiver must know every bitmap's
// length to find the next one, so an unknown bitmap ends the reading:
// the terminal answers it with 84 83 (PA00P015 §13, last paragraph).

type Format = number | 'LL' | 'LLL' | 'TLV';

const FORMATS: Record<number, Format> = {
  0x01: 1, // timeout
  0x02: 1, // max. status-infos
  0x03: 1, // service byte
  0x04: 6, // amount, BCD
  0x05: 1, // pump number
  0x06: 'TLV',
  0x0b: 3, // trace number
  0x0c: 3, // time HHMMSS
  0x0d: 2, // date MMDD
  0x0e: 2, // expiry YYMM
  0x17: 2, // card sequence number
  0x19: 1, // status byte / payment type / card type
  0x22: 'LL', // PAN, BCD, 'E' masks a digit
  0x23: 'LL', // track 2
  0x24: 'LLL', // track 3
  0x27: 1, // result code
  0x29: 4, // terminal id
  0x2a: 15, // VU number
  0x2d: 'LL', // track 1
  0x2e: 'LLL', // synchronous chip data
  0x37: 3, // trace of the original transaction
  0x3a: 2, // CVV/CVC
  0x3b: 8, // AID (authorisation attribute)
  0x3c: 'LLL', // additional data / text
  0x3d: 3, // password
  0x49: 2, // currency code
  0x4c: 'LL', // blocked goods groups
  0x60: 'LLL', // single totals
  0x70: 4,
  0x71: 4,
  0x72: 1,
  0x73: 1,
  0x74: 1,
  0x75: 1,
  0x87: 2, // receipt number
  0x88: 3, // turnover record number
  0x8a: 1, // ZVT card type
  0x8b: 'LL', // card name
  0x8c: 1, // network operator's card type
  0x9a: 'LLL', // GeldKarte records
  0xa0: 1, // result code AS
  0xa7: 'LL', // EF_ID
  0xaa: 3, // date YYMMDD
  0xaf: 'LLL', // EF_Info
  0xba: 5, // AID parameter
  0xd0: 1,
  0xd1: 'LL',
  0xd2: 1,
  0xd3: 1,
  0xe0: 1,
  0xe1: 'LL',
  0xe2: 'LL',
  0xe3: 'LL',
  0xe4: 'LL',
  0xe5: 'LL',
  0xe6: 'LL',
  0xe7: 'LL',
  0xe8: 'LL',
  0xe9: 1,
  0xea: 1,
  0xeb: 8,
  0xf0: 1,
  0xf1: 'LL',
  0xf2: 'LL',
  0xf3: 'LL',
  0xf4: 'LL',
  0xf5: 'LL',
  0xf6: 'LL',
  0xf7: 'LL',
  0xf8: 'LL',
  0xf9: 1,
  0xfa: 1,
  0xfb: 1,
  0xfc: 1,
  0xfd: 1,
};

export interface Field {
  bmp: number;
  /** The value, without its length prefix. */
  value: Buffer;
  /** Bitmap 06 only: the container's objects. */
  tlv?: TlvObject[];
}

export class BitmapError extends Error {
  override readonly name = 'BitmapError';
  constructor(
    message: string,
    /** An unknown bitmap (84 83), rather than a known one malformed. */
    readonly unknown = false,
  ) {
    super(message);
  }
}

const name = (bmp: number) => bmp.toString(16).padStart(2, '0').toUpperCase();

/** The bitmaps of a data block from `offset` on. */
export function decodeFields(data: Uint8Array, offset = 0): Field[] {
  const fields: Field[] = [];
  while (offset < data.length) {
    const bmp = data[offset++]!;
    const format = FORMATS[bmp];
    if (format === undefined) throw new BitmapError(`unknown bitmap ${name(bmp)}`, true);
    let size: number;
    if (typeof format === 'number') size = format;
    else if (format === 'TLV') {
      const length = readBerLength(data, offset);
      offset += length.size;
      size = length.length;
    } else {
      const digits = format === 'LL' ? 2 : 3;
      if (offset + digits > data.length) throw new BitmapError(`bitmap ${name(bmp)}: its length is cut short`);
      size = readVarLength(data.subarray(offset, offset + digits));
      offset += digits;
    }
    if (offset + size > data.length)
      throw new BitmapError(`bitmap ${name(bmp)} takes ${size} bytes, ${data.length - offset} are left`);
    const value = Buffer.from(data.subarray(offset, offset + size));
    offset += size;
    fields.push(format === 'TLV' ? { bmp, value, tlv: decodeTlv(value) } : { bmp, value });
  }
  return fields;
}

/** A data block of bitmaps, in the order given. */
export function encodeFields(fields: ReadonlyArray<{ bmp: number; value: Uint8Array }>): Buffer {
  return Buffer.concat(
    fields.map(({ bmp, value }) => {
      const format = FORMATS[bmp];
      if (format === undefined) throw new BitmapError(`unknown bitmap ${name(bmp)}`, true);
      let prefix: Buffer;
      if (typeof format === 'number') {
        if (value.length !== format)
          throw new BitmapError(`bitmap ${name(bmp)} is ${format} bytes, got ${value.length}`);
        prefix = Buffer.alloc(0);
      } else if (format === 'TLV') prefix = berLength(value.length);
      else prefix = varLength(value.length, format === 'LL' ? 2 : 3);
      return Buffer.concat([Buffer.of(bmp), prefix, value]);
    }),
  );
}

/** The value of the first field `bmp`, if any. */
export function fieldOf(fields: readonly Field[], bmp: number): Buffer | undefined {
  return fields.find((field) => field.bmp === bmp)?.value;
}
