import { settlementFields } from './schemas/pos.js';
import type { Schemas } from './types/document-types.js';

/** A settlement (batch close) as the POS routes take and answer it (INTERFACE.md §4): the document's schema. */
export type Settlement = Schemas['Settlement'];

/** The six fields of a settlement, and nothing else of `value` (a stored record, a bridge's outbox entry). */
export function settlementOf(value: Settlement): Settlement {
  // A loop rather than fromEntries: it is on every settlement write and read.
  const picked: Partial<Record<(typeof settlementFields)[number], unknown>> = {};
  for (const field of settlementFields) picked[field] = value[field];
  return picked as Settlement;
}
