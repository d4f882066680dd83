import { settlementFields } from './schemas/pos.js';
import type { Schemas } from './types/document-types.js';

/** A settlement (batch close) as the POS routes take and answer it (INTERFACE.md §4): the document's schema. */
export type Settlement = Schemas['Settlement'];

/** The six fields of a settlement, and nothing else of `value` (a stored record, a bridge's outbox entry). */
export function settlementOf(value: Settlement): Settlement {
  return Object.fromEntries(settlementFields.map((field) => [field, value[field]])) as unknown as Settlement;
}
