import type { Account } from '../accounts/account.js';
import { accountNow, iso, type Clock } from '../clock.js';
import { appError } from '../errors.js';
import type { Store } from '../store/store.js';
import type { PosSignature, PosSignatures, Signer } from '../terminals/pos-signatures.js';
import {
  parseSort,
  publicSettlement,
  sameSettlement,
  settlementKey,
  type Settlement,
  type SettlementRecord,
} from './settlement.js';

export interface SettlementQuery {
  sort: string;
  size: number;
  page: number;
  from?: string;
  to?: string;
}

/** Batch settlements (INTERFACE.md §4). */
export class SettlementService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly signed: PosSignatures,
  ) {}

  /**
   * Registers a batch close, signed by its terminal: the insert claims the
   * signature in the same step. The same six fields again answer the
   * stored one, different ones 409.
   */
  async notify(
    signature: PosSignature,
    settlement: Settlement,
  ): Promise<{ settlement: Settlement; replayed: boolean }> {
    const { terminal } = signature;
    if (settlement.terminal !== terminal.serialNumber) {
      throw appError('VALIDATION_FAILED', [
        {
          in: 'body',
          pointer: '/terminal',
          message: `must equal the serial number of the path, ${terminal.serialNumber}`,
        },
      ]);
    }
    const key = settlementKey(terminal.serialNumber, settlement.batchNumber);
    const build = ({ terminal: by, account: on }: Signer): SettlementRecord => ({
      ...publicSettlement(settlement),
      merchantId: by.merchantId,
      receivedAt: iso(accountNow(this.clock, on)),
    });
    // Recorded once, by its key; nothing else changes with it, so no transaction (and, on PostgreSQL, one statement).
    const { record, inserted } = await this.signed.insertIfAbsent(signature, 'settlements', key, build);
    if (inserted) return { settlement: publicSettlement(record), replayed: false };
    if (!sameSettlement(record, settlement)) {
      throw appError('SETTLEMENT_CONFLICT', terminal.serialNumber, settlement.batchNumber);
    }
    return { settlement: publicSettlement(record), replayed: true };
  }

  /**
   * The settlements of terminal `serial` for the merchant of `account`.
   * Each settlement carries its terminal's merchant (a terminal never changes
   * merchant, and a reset deletes a merchant's terminals with their
   * settlements), so a page of this merchant's settlements answers whose
   * terminal it is: `checkTerminal` (an unknown terminal, or another
   * merchant's, is NOT_FOUND) is read only for a page without them.
   */
  async list(
    account: Account,
    serial: string,
    query: SettlementQuery,
    checkTerminal: () => Promise<unknown>,
  ): Promise<Settlement[]> {
    const bounds = query.from !== undefined || query.to !== undefined;
    const records = await this.store.list<SettlementRecord>('settlements', {
      where: { terminal: serial },
      // closedAt is stored in one format (UTC with milliseconds), so its text order is its time order.
      ...(bounds
        ? {
            range: {
              field: 'closedAt',
              ...(query.from ? { min: normalise(query.from) } : {}),
              ...(query.to ? { max: normalise(query.to) } : {}),
            },
          }
        : {}),
      orderBy: parseSort(query.sort),
      limit: query.size,
      offset: (query.page - 1) * query.size,
    });
    if (records.length === 0 || records.some((record) => record.merchantId !== account.merchant_id))
      await checkTerminal();
    return records.map(publicSettlement);
  }
}

/** Any ISO 8601 time the query accepts, in the stored format. */
function normalise(time: string): string {
  return new Date(time).toISOString();
}
