/** A settlement (batch close) as the POS routes take and answer it (INTERFACE.md §4). */
export interface Settlement {
  batchNumber: string;
  transactionCount: number;
  closedAt: string;
  currencyReference: string;
  terminal: string;
  debitBatch: string;
}
