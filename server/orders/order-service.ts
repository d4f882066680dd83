import { randomBytes } from 'node:crypto';
import type { Account } from '../accounts/account.js';
import { accountNow, iso, type Clock } from '../clock.js';
import { appError, isAppError } from '../errors.js';
import type { Store } from '../store/store.js';
import { PosSignature, type PosSignatures } from '../terminals/pos-signatures.js';
import type { TerminalRecord } from '../terminals/terminal.js';
import { orderKey, publicOrder, type Order, type OrderRecord, type OrderStatus } from './order.js';
import { applyTrigger, type OrderTrigger } from './transitions.js';

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
    private readonly signed: PosSignatures,
  ) {}

  async create(account: Account, input: CreateOrderInput): Promise<Order> {
    const orderId = input.orderId ?? `ord_${randomBytes(9).toString('hex')}`;
    const now = iso(accountNow(this.clock, account));
    try {
      return await this.store.transact(async (tx) => {
        const terminal = await tx.get<TerminalRecord>('terminals', input.terminal);
        // A terminal of another merchant is indistinguishable from an unknown one (INTERFACE.md §0).
        if (!terminal || terminal.merchantId !== account.merchant_id)
          throw appError('NOT_FOUND', `terminal ${input.terminal}`);
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
      if (isAppError(error, 'DUPLICATE_KEY')) throw appError('ALREADY_EXISTS', `order ${orderId} already exists`);
      throw error;
    }
  }

  async get(account: Account, orderId: string): Promise<Order> {
    const record = await this.store.get<OrderRecord>('orders', orderKey(account.merchant_id, orderId));
    if (!record) throw appError('NOT_FOUND', `order ${orderId}`);
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
   * discard/commit race ends as one of them applied after the other.
   * `by` is the merchant's account, or a terminal's signature (claimed with
   * the write; then the terminal sees only its own orders).
   */
  async transition(
    by: Account | PosSignature,
    orderId: string,
    trigger: OrderTrigger,
  ): Promise<{ order: Order; changed: boolean }> {
    const signature = by instanceof PosSignature ? by : undefined;
    /** The caller's account as last read: a signed write updates it when it finds it changed. */
    const caller = (): Account => (by instanceof PosSignature ? by.account : by);
    const key = orderKey(caller().merchant_id, orderId);
    for (let attempt = 1; ; attempt += 1) {
      const record = await this.store.get<OrderRecord>('orders', key);
      if (!record || (signature && record.terminal !== signature.terminal.serialNumber))
        throw appError('NOT_FOUND', `order ${orderId}`);
      // An account's clock sets the times: a signed write may find it moved, and decides again on it as it is now.
      const decide = (on: Account) =>
        applyTrigger(publicOrder(record), onAccountClock(trigger, on), iso(accountNow(this.clock, on)));
      const decidedOn = caller();
      const outcome = decide(decidedOn);
      switch (outcome.result) {
        case 'changed': {
          let order = outcome.order;
          const next = (on: Account): OrderRecord => {
            const again = on === decidedOn ? outcome : decide(on);
            // The clock moves the times only, never the transition taken.
            if (again.result !== 'changed') throw new Error(`order ${orderId}: a transition changed with the clock`);
            order = again.order;
            return { ...again.order, account_id: record.account_id };
          };
          const replaced = signature
            ? await this.signed.replaceIf(signature, 'orders', key, record, ({ account }) => next(account))
            : await this.store.replaceIf('orders', key, record, next(caller()));
          if (replaced) return { order, changed: true };
          // Changed meanwhile: nothing was written; decide again on the order as it is now.
          if (attempt === MAX_TRANSITION_ATTEMPTS)
            throw appError(
              'STORE_UNAVAILABLE',
              `order ${orderId} changed ${attempt} times while this transition was being decided; nothing was written, try again`,
            );
          continue;
        }
        case 'unchanged':
          return { order: outcome.order, changed: false };
        case 'conflict':
          throw appError('ORDER_STATE_CONFLICT', outcome.reason, outcome.currentStatus);
        case 'amount-mismatch':
          throw appError('AMOUNT_MISMATCH', outcome.expected, outcome.got);
      }
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
function onAccountClock(trigger: OrderTrigger, account: Account): OrderTrigger {
  if (trigger.kind !== 'commit' || account.clock_offset_ms === 0) return trigger;
  return { ...trigger, paidAt: iso(Date.parse(trigger.paidAt) + account.clock_offset_ms) };
}
