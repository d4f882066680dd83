import { randomBytes } from 'node:crypto';
import type { Account } from '../accounts/account.js';
import { accountNow, iso, type Clock } from '../clock.js';
import { AppError, ConflictError, DuplicateKeyError, NotFoundError, StoreUnavailableError } from '../errors.js';
import type { Store } from '../store/store.js';
import { TerminalChangedError, type TerminalRecord } from '../terminals/terminal.js';
import { orderKey, publicOrder, type Order, type OrderRecord, type OrderStatus } from './order.js';
import { applyTrigger, type Trigger } from './transitions.js';

export interface CreateOrderInput {
  orderId?: string;
  terminal: string;
  amount: number;
  currency: string;
  description?: string;
}

export interface ListQuery {
  status?: OrderStatus;
  size: number;
  page: number;
}

/** Orders and their transitions (INTERFACE.md §3). */
export class OrderService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async create(account: Account, input: CreateOrderInput): Promise<Order> {
    const orderId = input.orderId ?? `ord_${randomBytes(9).toString('hex')}`;
    const now = iso(accountNow(this.clock, account));
    try {
      return await this.store.transact(async (tx) => {
        const terminal = await tx.get<TerminalRecord>('terminals', input.terminal);
        // A terminal of another merchant is indistinguishable from an unknown one (INTERFACE.md §0).
        if (!terminal || terminal.merchantId !== account.merchant_id)
          throw new NotFoundError(`terminal ${input.terminal}`);
        const record: OrderRecord = {
          orderId,
          merchantId: account.merchant_id,
          terminal: input.terminal,
          amount: input.amount,
          currency: input.currency,
          status: 'PENDING',
          ...(input.description !== undefined ? { description: input.description } : {}),
          createdAt: now,
          updatedAt: now,
          history: [],
          account_id: account.account_id,
        };
        tx.insert('orders', orderKey(account.merchant_id, orderId), record);
        return publicOrder(record);
      });
    } catch (error) {
      if (error instanceof DuplicateKeyError)
        throw new ConflictError('ALREADY_EXISTS', `order ${orderId} already exists`);
      throw error;
    }
  }

  async get(account: Account, orderId: string): Promise<Order> {
    const record = await this.store.get<OrderRecord>('orders', orderKey(account.merchant_id, orderId));
    if (!record) throw new NotFoundError(`order ${orderId}`);
    return publicOrder(record);
  }

  async list(where: { merchantId: string; terminal?: string }, query: ListQuery): Promise<Order[]> {
    const records = await this.store.list<OrderRecord>('orders', {
      where: { ...where, ...(query.status ? { status: query.status } : {}) },
      orderBy: { field: 'createdAt', direction: 'desc' },
      limit: query.size,
      offset: (query.page - 1) * query.size,
    });
    return records.map(publicOrder);
  }

  /**
   * Applies a trigger to one order: read it, decide by the transition table,
   * and replace it only if it is still as read (one conditional write, no
   * transaction); if another transition got there first, decide again on
   * what it left. So transitions of an order are serialised, and the
   * discard/commit race ends as one of them applied after the other. A
   * write that finds the account changed since (its clock moved, say)
   * decides again on the account as it is now.
   */
  async transition(
    account: Account,
    orderId: string,
    trigger: Trigger,
    terminal?: string,
  ): Promise<{ order: Order; changed: boolean }> {
    const key = orderKey(account.merchant_id, orderId);
    let on = account;
    for (let attempt = 1; ; attempt += 1) {
      const record = await this.store.get<OrderRecord>('orders', key);
      // A terminal sees only its own orders.
      if (!record || (terminal !== undefined && record.terminal !== terminal))
        throw new NotFoundError(`order ${orderId}`);
      const outcome = applyTrigger(publicOrder(record), onAccountClock(trigger, on), iso(accountNow(this.clock, on)));
      switch (outcome.result) {
        case 'changed': {
          const next = { ...outcome.order, account_id: record.account_id };
          if (await this.replaceIf(key, record, next, (changed) => (on = changed)))
            return { order: outcome.order, changed: true };
          // Changed meanwhile: nothing was written; decide again on the order as it is now.
          if (attempt === MAX_TRANSITION_ATTEMPTS)
            throw new StoreUnavailableError(
              `order ${orderId} changed ${attempt} times while this transition was being decided; nothing was written, try again`,
            );
          continue;
        }
        case 'unchanged':
          return { order: outcome.order, changed: false };
        case 'conflict':
          throw new AppError('ORDER_STATE_CONFLICT', outcome.reason, undefined, {
            currentStatus: outcome.currentStatus,
          });
        case 'amount-mismatch':
          throw new AppError(
            'AMOUNT_MISMATCH',
            `the order's amount is ${outcome.expected}, the confirmation says ${outcome.got}`,
          );
      }
    }
  }

  /** The order replaced if it is still `expected`; false when it is not, or when `account` changed under the decision (then told to `onAccount`). */
  private async replaceIf(
    key: string,
    expected: OrderRecord,
    next: OrderRecord,
    onAccount: (account: Account) => void,
  ): Promise<boolean> {
    try {
      return await this.store.replaceIf('orders', key, expected, next);
    } catch (error) {
      if (!(error instanceof TerminalChangedError)) throw error;
      onAccount(error.account);
      return false;
    }
  }
}

/** An order has a handful of transitions in its life: this many lost races in a row means something is wrong, not busy. */
const MAX_TRANSITION_ATTEMPTS = 50;

/**
 * A terminal reports when it was paid on its own clock; the account's
 * clock may have been moved ahead (INTERFACE.md §6), and every time an
 * account shows is on its clock. So paidAt is kept moved by the same offset:
 * it never reads before the order was created.
 */
function onAccountClock(trigger: Trigger, account: Account): Trigger {
  if (trigger.kind !== 'commit' || account.clock_offset_ms === 0) return trigger;
  return { ...trigger, paidAt: iso(Date.parse(trigger.paidAt) + account.clock_offset_ms) };
}
