import type { Account } from '../accounts/account.js';
import { newId } from '../accounts/secrets.js';
import { accountNow, iso, type Clock } from '../clock.js';
import { appError } from '../errors.js';
import type { Store, Transaction } from '../store/store.js';
import { owned } from './catalog.js';

export interface StopRecord {
  [field: string]: unknown;
  stop_id: string;
  account_id: string;
  name: string;
  address: string | null;
  position: number;
  session_ids: string[];
  created_at: string;
}

export const publicStop = ({ account_id: _account, ...stop }: StopRecord) => stop;

/** Stops, kept in a dense order of positions 1..n (INTERFACE.md §5, operations 9–14). */
export class StopService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  list(account: Account): Promise<StopRecord[]> {
    return this.store.list<StopRecord>('stops', {
      where: { account_id: account.account_id },
      orderBy: { field: 'position', direction: 'asc' },
    });
  }

  get(account: Account, stopId: string): Promise<StopRecord> {
    return owned<StopRecord>(this.store, 'stops', stopId, account, 'stop');
  }

  async create(account: Account, input: { name: string; address?: string; position?: number }): Promise<StopRecord> {
    return this.store.transact(async (tx) => {
      const stops = await this.ordered(tx, account);
      const position = input.position ?? stops.length + 1;
      if (position > stops.length + 1) {
        throw appError('VALIDATION_FAILED', [
          {
            in: 'body',
            pointer: '/position',
            message: `must be from 1 to ${stops.length + 1}, the positions there are`,
          },
        ]);
      }
      const stop: StopRecord = {
        stop_id: newId('stp'),
        account_id: account.account_id,
        name: input.name,
        address: input.address ?? null,
        position,
        session_ids: [],
        created_at: iso(accountNow(this.clock, account)),
      };
      for (const other of stops)
        if (other.position >= position) tx.put('stops', other.stop_id, { ...other, position: other.position + 1 });
      tx.insert('stops', stop.stop_id, stop);
      return stop;
    });
  }

  async delete(account: Account, stopId: string): Promise<void> {
    await this.store.transact(async (tx) => {
      const stop = await owned<StopRecord>(tx, 'stops', stopId, account, 'stop');
      for (const other of await this.ordered(tx, account)) {
        if (other.position > stop.position) tx.put('stops', other.stop_id, { ...other, position: other.position - 1 });
      }
      tx.delete('stops', stopId);
    });
  }

  /** Every stop of the account, listed once, takes its place in that order. */
  async reorder(account: Account, stopIds: string[]): Promise<StopRecord[]> {
    return this.store.transact(async (tx) => {
      const stops = await this.ordered(tx, account);
      const byId = new Map(stops.map((stop) => [stop.stop_id, stop]));
      const unknown = stopIds.find((id) => !byId.has(id));
      if (unknown !== undefined) throw appError('NOT_FOUND', `stop ${unknown}`);
      if (stopIds.length !== stops.length) {
        const missing = stops.filter((stop) => !stopIds.includes(stop.stop_id)).map((stop) => stop.stop_id);
        throw appError('VALIDATION_FAILED', [
          { in: 'body', pointer: '/stop_ids', message: `must list every stop once; missing ${missing.join(', ')}` },
        ]);
      }
      return stopIds.map((id, index) => {
        const moved = { ...byId.get(id)!, position: index + 1 };
        tx.put('stops', id, moved);
        return moved;
      });
    });
  }

  private ordered(tx: Transaction, account: Account): Promise<StopRecord[]> {
    return tx.list<StopRecord>('stops', {
      where: { account_id: account.account_id },
      orderBy: { field: 'position', direction: 'asc' },
    });
  }
}

/** The operations that answer with the contract example only (stops update, history, multiple query; INTERFACE.md §5). */
export const stopMocks = {
  stop: { stop_id: 'stp_example', name: 'Example stop', address: '1 Example Street', position: 1, status: 'active' },
  history: {
    stop_id: 'stp_example',
    history: [
      { at: '2026-01-01T09:00:00.000Z', event: 'created' },
      { at: '2026-01-01T10:30:00.000Z', event: 'updated' },
    ],
  },
  query: {
    data: [
      { stop_id: 'stp_example', name: 'Example stop', address: '1 Example Street', position: 1, status: 'active' },
      {
        stop_id: 'stp_example_2',
        name: 'Second example stop',
        address: '2 Example Street',
        position: 2,
        status: 'active',
      },
    ],
  },
};
