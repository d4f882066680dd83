import { codeHex } from './apdu.js';
import { berLength, decodeTlv, readBerLength, type TlvObject } from './tlv.js';
import { readVarLength, varLength } from './bcd.js';
import { field, type FieldSpec } from '../message-table.js';
import { ProtocolError } from '../../errors.js';

// Bitmaps (PA00P015 §13): a data field prefixed with its number. Each has
// a fixed length, an LL-var or LLL-var length (F0-F9 digits), or, for 06,
// a BER length (a TLV container). A receiver must know every bitmap's
// length to find the next one, so an unknown bitmap ends the reading:
// the terminal answers it with 84 83 (PA00P015 §13, last paragraph).

/** Every bitmap of PA00P015 §13, in the format of every dialect's table (../message-table.ts): its name, kind and size. */
export const BITMAPS: Readonly<Record<number, FieldSpec>> = {
  0x01: field.binary('timeout', 1), // timeout
  0x02: field.binary('maxStatusInfos', 1), // max. status-infos
  0x03: field.binary('serviceByte', 1), // service byte
  0x04: field.bcd('amount', 6), // amount, BCD
  0x05: field.binary('pumpNumber', 1), // pump number
  0x06: field.tlv('tlv'), // a TLV container
  0x0b: field.bcd('trace', 3), // trace number
  0x0c: field.bcd('time', 3), // time HHMMSS
  0x0d: field.bcd('date', 2), // date MMDD
  0x0e: field.bcd('expiry', 2), // expiry YYMM
  0x17: field.bcd('cardSequence', 2), // card sequence number
  0x19: field.binary('statusOrPaymentType', 1), // status byte / payment type / card type
  0x22: field.bcd('pan', 'LL'), // PAN, BCD, 'E' masks a digit
  0x23: field.bcd('track2', 'LL'), // track 2
  0x24: field.bcd('track3', 'LLL'), // track 3
  0x27: field.binary('resultCode', 1), // result code
  0x29: field.bcd('terminalId', 4), // terminal id
  0x2a: { name: 'vuNumber', kind: 'text', size: 15 }, // VU number
  0x2d: { name: 'track1', kind: 'text', size: 'LL' }, // track 1
  0x2e: field.binary('chipData', 'LLL'), // synchronous chip data
  0x37: field.bcd('originalTrace', 3), // trace of the original transaction
  0x3a: field.bcd('cvv', 2), // CVV/CVC
  0x3b: { name: 'aid', kind: 'text', size: 8 }, // AID (authorisation attribute)
  0x3c: { name: 'additionalText', kind: 'text', size: 'LLL' }, // additional data / text
  0x3d: field.bcd('password', 3), // password
  0x49: field.bcd('currency', 2), // currency code
  0x4c: field.binary('blockedGoodsGroups', 'LL'), // blocked goods groups
  0x60: field.bcd('singleTotals', 'LLL'), // single totals
  0x70: field.binary('imageRequestId', 4),
  0x71: field.binary('imageSize', 4),
  0x72: field.binary('imageMime', 1),
  0x73: field.binary('imageEncoding', 1),
  0x74: field.binary('imageChunks', 1),
  0x75: field.binary('imageChunk', 1),
  0x87: field.bcd('receipt', 2), // receipt number
  0x88: field.bcd('turnoverNumber', 3), // turnover record number
  0x8a: field.binary('cardType', 1), // ZVT card type
  0x8b: { name: 'cardName', kind: 'text', size: 'LL' }, // card name
  0x8c: field.binary('operatorCardType', 1), // network operator's card type
  0x9a: field.binary('geldkarteRecords', 'LLL'), // GeldKarte records
  0xa0: field.binary('resultCodeAs', 1), // result code AS
  0xa7: field.binary('efId', 'LL'), // EF_ID
  0xaa: field.bcd('dateYYMMDD', 3), // date YYMMDD
  0xaf: field.binary('efInfo', 'LLL'), // EF_Info
  0xba: field.binary('aidParameter', 5), // AID parameter
  0xd0: field.binary('algorithmKey', 1),
  0xd1: field.binary('pinData', 'LL'),
  0xd2: field.binary('cardOutput', 1),
  0xd3: field.binary('dukptKey', 1),
  0xe0: field.binary('inputMin', 1),
  0xe1: { name: 'text2Line1', kind: 'text', size: 'LL' },
  0xe2: { name: 'text2Line2', kind: 'text', size: 'LL' },
  0xe3: { name: 'text2Line3', kind: 'text', size: 'LL' },
  0xe4: { name: 'text2Line4', kind: 'text', size: 'LL' },
  0xe5: { name: 'text2Line5', kind: 'text', size: 'LL' },
  0xe6: { name: 'text2Line6', kind: 'text', size: 'LL' },
  0xe7: { name: 'text2Line7', kind: 'text', size: 'LL' },
  0xe8: { name: 'text2Line8', kind: 'text', size: 'LL' },
  0xe9: field.binary('inputMax', 1),
  0xea: field.binary('inputEcho', 1),
  0xeb: field.binary('mac', 8),
  0xf0: field.binary('displayDuration', 1),
  0xf1: { name: 'text1Line1', kind: 'text', size: 'LL' },
  0xf2: { name: 'text1Line2', kind: 'text', size: 'LL' },
  0xf3: { name: 'text1Line3', kind: 'text', size: 'LL' },
  0xf4: { name: 'text1Line4', kind: 'text', size: 'LL' },
  0xf5: { name: 'text1Line5', kind: 'text', size: 'LL' },
  0xf6: { name: 'text1Line6', kind: 'text', size: 'LL' },
  0xf7: { name: 'text1Line7', kind: 'text', size: 'LL' },
  0xf8: { name: 'text1Line8', kind: 'text', size: 'LL' },
  0xf9: field.binary('beeps', 1),
  0xfa: field.binary('cardReader', 1),
  0xfb: field.binary('confirm', 1),
  0xfc: field.binary('dialogControl', 1),
  0xfd: field.binary('displayDevice', 1),
};

export interface Field {
  bmp: number;
  /** The value, without its length prefix. */
  value: Buffer;
  /** Bitmap 06 only: the container's objects. */
  tlv?: TlvObject[];
}

const name = codeHex;

/** The bitmaps of a data block from `offset` on. */
export function decodeFields(data: Uint8Array, offset = 0): Field[] {
  const fields: Field[] = [];
  while (offset < data.length) {
    const bmp = data[offset++]!;
    const format = BITMAPS[bmp]?.size;
    if (format === undefined) throw new ProtocolError('BITMAP_UNKNOWN', `unknown bitmap ${name(bmp)}`);
    let size: number;
    if (typeof format === 'number') size = format;
    else if (format === 'BER') {
      const length = readBerLength(data, offset);
      offset += length.size;
      size = length.length;
    } else {
      const digits = format === 'LL' ? 2 : 3;
      if (offset + digits > data.length)
        throw new ProtocolError('BITMAP_INVALID', `bitmap ${name(bmp)}: its length is cut short`);
      size = readVarLength(data.subarray(offset, offset + digits));
      offset += digits;
    }
    if (offset + size > data.length)
      throw new ProtocolError(
        'BITMAP_INVALID',
        `bitmap ${name(bmp)} takes ${size} bytes, ${data.length - offset} are left`,
      );
    const value = Buffer.from(data.subarray(offset, offset + size));
    offset += size;
    fields.push(format === 'BER' ? { bmp, value, tlv: decodeTlv(value) } : { bmp, value });
  }
  return fields;
}

/** A data block of bitmaps, in the order given. */
export function encodeFields(fields: ReadonlyArray<{ bmp: number; value: Uint8Array }>): Buffer {
  return Buffer.concat(
    fields.map(({ bmp, value }) => {
      const format = BITMAPS[bmp]?.size;
      if (format === undefined) throw new ProtocolError('BITMAP_UNKNOWN', `unknown bitmap ${name(bmp)}`);
      let prefix: Buffer;
      if (typeof format === 'number') {
        if (value.length !== format)
          throw new ProtocolError('BITMAP_INVALID', `bitmap ${name(bmp)} is ${format} bytes, got ${value.length}`);
        prefix = Buffer.alloc(0);
      } else if (format === 'BER') prefix = berLength(value.length);
      else prefix = varLength(value.length, format === 'LL' ? 2 : 3);
      return Buffer.concat([Buffer.of(bmp), prefix, value]);
    }),
  );
}

/** The value of the first field `bmp`, if any. */
export function fieldOf(fields: readonly Field[], bmp: number): Buffer | undefined {
  return fields.find((field) => field.bmp === bmp)?.value;
}
