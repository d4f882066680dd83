import type { MoneyRecord } from './money-record.js';

// Earlier versions of the bridge stored records (in a journal's outbox, in
// held records) in the svc device's message shape: the message code in
// place of the kind. They are read through here, so nothing kept across an
// upgrade is lost; everything is written in the neutral shape.

const KINDS = { '0210': 'payment', '0230': 'void', '0520': 'settlement' } as const;

/** A record as an earlier version stored it: the svc message's code and its fields. */
export interface LegacyRecord {
  code: keyof typeof KINDS;
  [field: string]: unknown;
}

/** A record as stored now (neutral) or by an earlier version. */
export function storedRecord(stored: MoneyRecord | LegacyRecord): MoneyRecord {
  if (!('code' in stored)) return stored;
  const { code, ...fields } = stored as LegacyRecord;
  return { kind: KINDS[code], ...fields } as MoneyRecord;
}
