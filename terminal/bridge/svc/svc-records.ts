import type { MoneyRecord } from '../money-record.js';
import type { RecordMessage } from '../../protocol/svc/messages.js';
import { storedRecord } from '../stored-record.js';

// The svc device's records (0210 a sale, 0230 a void, 0520 a batch close)
// as the neutral money records the bridge delivers.

export function fromSvcRecord(message: RecordMessage): MoneyRecord {
  return storedRecord(message);
}
