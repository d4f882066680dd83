// The one typed format every dialect writes its message tables in (svc,
// Transbank's POS Integrado, ZVT): a message is its code and its fields in
// order, each field a name, a kind and a size. Each dialect's codec reads
// its own table (the text dialects separate fields with "|", ZVT prefixes
// each with its bitmap); the tables read the same way, whoever reads them.

export type FieldKind =
  /** Decimal digits, read as a number. */
  | 'number'
  /** Decimal digits kept as text: codes whose leading zeros matter. */
  | 'digits'
  /** Printable ASCII. */
  | 'text'
  /** Yes or no: "1"/"0" in the text dialects, a byte in ZVT. */
  | 'flag'
  /** One of `values`. */
  | 'choice'
  /** Sent empty or as a filler, never read. */
  | 'reserved'
  /** Packed BCD (ZVT: amounts, numbers, dates). */
  | 'bcd'
  /** Bytes as they are (ZVT). */
  | 'binary'
  /** A BER-TLV container (ZVT bitmap 06). */
  | 'tlv';

export interface FieldSpec {
  name: string;
  kind: FieldKind;
  /** Most characters a text dialect's field may hold. */
  max?: number;
  /** A ZVT field's length: a fixed number of bytes, an LL-var or LLL-var prefix (F0-F9 digits), or BER (TLV). */
  size?: number | 'LL' | 'LLL' | 'BER';
  /** Whether it may be empty, or left off the end. */
  optional?: boolean;
  /** A choice's values. */
  values?: readonly string[];
}

/** A dialect's messages: each code and its fields in order. */
export type MessageTable = Readonly<Record<string, readonly FieldSpec[]>>;

export const field = {
  number: (name: string, max?: number, optional = false): FieldSpec => ({
    name,
    kind: 'number',
    ...(max ? { max } : {}),
    optional,
  }),
  digits: (name: string, max: number, optional = false): FieldSpec => ({ name, kind: 'digits', max, optional }),
  text: (name: string, max?: number, optional = true): FieldSpec => ({
    name,
    kind: 'text',
    ...(max ? { max } : {}),
    optional,
  }),
  flag: (name: string): FieldSpec => ({ name, kind: 'flag', max: 1 }),
  choice: (name: string, values: readonly string[]): FieldSpec => ({ name, kind: 'choice', values }),
  reserved: (name: string): FieldSpec => ({ name, kind: 'reserved', max: 12 }),
  bcd: (name: string, size: FieldSpec['size']): FieldSpec => ({ name, kind: 'bcd', size }),
  binary: (name: string, size: FieldSpec['size']): FieldSpec => ({ name, kind: 'binary', size }),
  tlv: (name: string): FieldSpec => ({ name, kind: 'tlv', size: 'BER' }),
};
