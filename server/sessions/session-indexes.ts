import type { IndexDeclaration } from '../store/store.js';

// The query shapes of the payment-session product's collections (INTERFACE.md
// §5–§8): an account's records by age, which the data-lifetime purge walks
// (hourly, per account), and the stops in their order.

const byAge = (field = 'created_at'): IndexDeclaration => ({ equals: ['account_id'], order: { field, type: 'time' } });

/** A session's events in their order, and an account's by age. */
export const eventIndexes: IndexDeclaration[] = [
  byAge(),
  { equals: ['session_id'], order: { field: 'seq', type: 'number' } },
];
export const batchIndexes: IndexDeclaration[] = [byAge()];
export const stopIndexes: IndexDeclaration[] = [
  byAge(),
  { equals: ['account_id'], order: { field: 'position', type: 'number' } },
];
export const agreementIndexes: IndexDeclaration[] = [byAge()];
export const partnerIndexes: IndexDeclaration[] = [byAge()];
export const splitAgreementIndexes: IndexDeclaration[] = [byAge()];
