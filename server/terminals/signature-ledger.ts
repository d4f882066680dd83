import type { Account } from '../accounts/account.js';
import type { ClaimedWrite, IndexDeclaration, LinkedRead, ReadBasis, StoredRecord } from '../store/store.js';
import type { TerminalRecord } from './terminal.js';

// The port the POS signature guard keeps accepted signatures through
// (INTERFACE.md §2: a signature already accepted within the tolerance window is
// SIGNATURE_REPLAYED, and any other passes). Its adapter keeps them as
// records of the store (store-signature-ledger.ts), durable before the
// answer, so no restart forgets one and none refuses a signature it never saw.

/** What the ledger says of a signature: new (now remembered) or already accepted. */
export type ReplayVerdict = 'new' | 'replayed';

/** A signed request's claim on its signature: accepted once, within the tolerance window. */
export interface SignatureClaim {
  /** The terminal's serial and the signature. */
  key: string;
  serial: string;
  signedAt: number;
  /** When a replay of it would be stale anyway, so it need not be remembered after. */
  expiresAt: number;
  /** The server's clock. */
  now: number;
}

/** A terminal and its account as they are now, each absent when gone. */
export interface TerminalNow {
  terminal?: TerminalRecord;
  account?: Account;
}

/** What a claim made with the request's one write did. */
export interface ClaimedWriteResult {
  verdict: ReplayVerdict;
  /** Made only when the claim is new and the terminal and its account's clock are still as the write was decided on. */
  written: boolean;
  /** They changed since (or went): nothing was written, and here they are as they are now. */
  changed?: TerminalNow;
  /** For an insert whose id was taken, the record there. */
  existing?: StoredRecord;
}

export interface SignatureLedger {
  /** The verdict on `claim`, remembered if new, with the terminal and its account as they are now, in one step. */
  claimAndRead(claim: SignatureClaim): Promise<{ verdict: ReplayVerdict } & TerminalNow>;
  /**
   * The claim and the request's one write in one step, where the ledger and
   * the records share a store (one statement on PostgreSQL): the write is
   * made only if the claim is new and the terminal and its account's clock
   * are still `basis`.
   */
  claimAndWrite(
    claim: SignatureClaim,
    basis: { terminal: TerminalRecord; account: Account },
    write: ClaimedWrite,
  ): Promise<ClaimedWriteResult>;
}

/** Where accepted signatures are kept, one record each until a replay of it would be stale anyway. */
export const SIGNATURES = 'pos_signatures';

/** Accepted signatures, swept by expiry. */
export const signatureIndexes: IndexDeclaration[] = [{ equals: [], order: { field: 'expires_at', type: 'number' } }];

/** A terminal and its account, read in one step. */
export const terminalWithAccount = (serial: string): LinkedRead => ({
  collection: 'terminals',
  id: serial,
  field: 'account_id',
  linkedCollection: 'accounts',
});

/** What a write is decided on: the terminal as read, and its account's clock (a record's times are on it). */
export const decidedOn = ({ terminal, account }: { terminal: TerminalRecord; account: Account }): ReadBasis => ({
  record: terminal,
  linkedFields: { clock_offset_ms: account.clock_offset_ms },
});
