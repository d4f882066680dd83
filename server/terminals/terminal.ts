import type { IndexDeclaration } from '../store/store.js';
/** A POS terminal of a merchant; stored under its serial number, unique across the service. */
export interface TerminalRecord {
  [field: string]: unknown;
  serialNumber: string;
  merchantId: string;
  account_id: string;
  label: string | null;
  /** The HMAC key: 64 lowercase hex characters. Never listed or logged. */
  secret: string;
  createdAt: string;
  secretCreatedAt: string;
  secretRotatedAt: string | null;
}

export function publicTerminal(terminal: TerminalRecord) {
  return {
    serialNumber: terminal.serialNumber,
    label: terminal.label,
    createdAt: terminal.createdAt,
    secretRotatedAt: terminal.secretRotatedAt,
  };
}

export function terminalSecret(terminal: TerminalRecord) {
  return { serialNumber: terminal.serialNumber, secret: terminal.secret, createdAt: terminal.secretCreatedAt };
}

/** A merchant's terminals, oldest first. */
export const terminalIndexes: IndexDeclaration[] = [
  { equals: ['merchantId'], order: { field: 'createdAt', type: 'time' } },
  // An account's terminals, for its reset.
  { equals: ['account_id'] },
];
