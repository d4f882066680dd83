import type { Account } from '../accounts/account.js';
import { accountNow, iso, type Clock } from '../clock.js';
import { AppError, ValidationError } from '../errors.js';
import type { Store } from '../store/store.js';
import type { TerminalRecord } from '../terminals/terminal.js';
import { parseSort, publicSettlement, sameSettlement, settlementKey, type Settlement, type SettlementRecord } from './settlement.js';

export interface SettlementQuery {
  sort: string;
  size: number;
  page: number;
  from?: string;
  to?: string;
}

/** Batch settlements (addendum §4). */
export class SettlementService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Registers a batch close; the same six fields again answer the stored one, different ones 409. */
  async notify(terminal: TerminalRecord, account: Account, settlement: Settlement): Promise<{ settlement: Settlement; replayed: boolean }> {
    if (settlement.terminal !== terminal.serialNumber) {
      throw new ValidationError([{ in: 'body', pointer: '/terminal', message: `must equal the serial number of the path, ${terminal.serialNumber}` }]);
    }
    const key = settlementKey(terminal.serialNumber, settlement.batchNumber);
    const record: SettlementRecord = {
      ...publicSettlement(settlement),
      merchantId: terminal.merchantId,
      receivedAt: iso(accountNow(this.clock, account)),
    };
    // Recorded once, by its key; nothing else changes with it, so no transaction (and, on PostgreSQL, one statement).
    const stored = await this.store.insertIfAbsent<SettlementRecord>('settlements', key, record);
    if (!stored) return { settlement: publicSettlement(record), replayed: false };
    if (!sameSettlement(stored, settlement)) {
      throw new AppError('SETTLEMENT_CONFLICT', `batch ${settlement.batchNumber} of terminal ${terminal.serialNumber} is already registered with other fields`);
    }
    return { settlement: publicSettlement(stored), replayed: true };
  }

  async list(terminal: TerminalRecord, query: SettlementQuery): Promise<Settlement[]> {
    const bounds = query.from !== undefined || query.to !== undefined;
    const records = await this.store.list<SettlementRecord>('settlements', {
      where: { terminal: terminal.serialNumber },
      // closedAt is stored in one format (UTC with milliseconds), so its text order is its time order.
      ...(bounds ? { range: { field: 'closedAt', ...(query.from ? { min: normalise(query.from) } : {}), ...(query.to ? { max: normalise(query.to) } : {}) } } : {}),
      orderBy: parseSort(query.sort),
      limit: query.size,
      offset: (query.page - 1) * query.size,
    });
    return records.map(publicSettlement);
  }
}

/** Any ISO 8601 time the query accepts, in the stored format. */
function normalise(time: string): string {
  return new Date(time).toISOString();
}
