import { randomBytes } from 'node:crypto';
import type { Account } from '../accounts/account.js';
import { accountNow, iso, type Clock } from '../clock.js';
import { appError, isAppError } from '../errors.js';
import type { Store } from '../store/store.js';
import type { TerminalRecord } from './terminal.js';

/** Terminal provisioning and secret rotation (INTERFACE.md §2). */
export class TerminalService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async provision(account: Account, input: { serialNumber: string; label?: string }): Promise<TerminalRecord> {
    const now = iso(accountNow(this.clock, account));
    const terminal: TerminalRecord = {
      serialNumber: input.serialNumber,
      merchantId: account.merchant_id,
      account_id: account.account_id,
      label: input.label ?? null,
      secret: newTerminalSecret(),
      createdAt: now,
      secretCreatedAt: now,
      secretRotatedAt: null,
    };
    try {
      await this.store.transact((tx) => tx.insert('terminals', terminal.serialNumber, terminal));
    } catch (error) {
      if (isAppError(error, 'DUPLICATE_KEY'))
        throw appError('ALREADY_EXISTS', `serial number ${input.serialNumber} is already provisioned`);
      throw error;
    }
    return terminal;
  }

  list(account: Account): Promise<TerminalRecord[]> {
    return this.store.list<TerminalRecord>('terminals', {
      where: { merchantId: account.merchant_id },
      orderBy: { field: 'createdAt', direction: 'asc' },
    });
  }

  /** The merchant's terminal; another merchant's or an unknown one is NOT_FOUND. */
  async get(account: Account, serialNumber: string): Promise<TerminalRecord> {
    const terminal = await this.store.get<TerminalRecord>('terminals', serialNumber);
    if (!terminal || terminal.merchantId !== account.merchant_id)
      throw appError('NOT_FOUND', `terminal ${serialNumber}`);
    return terminal;
  }

  async rotateSecret(account: Account, serialNumber: string): Promise<TerminalRecord> {
    return this.store.transact(async (tx) => {
      const terminal = await tx.get<TerminalRecord>('terminals', serialNumber);
      if (!terminal || terminal.merchantId !== account.merchant_id)
        throw appError('NOT_FOUND', `terminal ${serialNumber}`);
      const now = iso(accountNow(this.clock, account));
      const rotated = { ...terminal, secret: newTerminalSecret(), secretCreatedAt: now, secretRotatedAt: now };
      tx.put('terminals', serialNumber, rotated);
      return rotated;
    });
  }
}

function newTerminalSecret(): string {
  return randomBytes(32).toString('hex');
}
