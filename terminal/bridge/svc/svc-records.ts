import type { MoneyRecord } from '../money-record.js';
import type { RecordMessage } from '../../protocol/svc/messages.js';

// The svc device's records (0210 a sale, 0230 a void, 0520 a batch close)
// and the neutral money records the bridge delivers. Earlier versions of
// the bridge also stored records in this shape (its journal, held records):
// they are read through here, so nothing kept across an upgrade is lost.

const KINDS = { '0210': 'payment', '0230': 'void', '0520': 'settlement' } as const;

export function fromSvcRecord(message: RecordMessage): MoneyRecord {
  const { code, ...fields } = message;
  return { kind: KINDS[code], ...fields } as MoneyRecord;
}

/** A record as stored now (neutral) or by an earlier version (the svc message). */
export function storedRecord(stored: MoneyRecord | RecordMessage): MoneyRecord {
  return 'kind' in stored ? stored : fromSvcRecord(stored);
}
