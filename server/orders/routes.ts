import type { OperationHandlers } from '../http/operation.js';
import type { AppContext } from '../http/context.js';
import type { Account } from '../accounts/account.js';
import type { PosSignature } from '../terminals/pos-signatures.js';
import type { ListQuery, OrderService } from './order-service.js';
import type { Order } from './order.js';
import type { OrderTrigger } from './transitions.js';

const envelope = (title: string, data: Order | Order[], detail?: string) => ({
  title,
  ...(detail ? { detail } : {}),
  data,
});

const listQuery = (query: { status?: ListQuery['status']; size?: number; page?: number }): ListQuery => ({
  ...(query.status ? { status: query.status } : {}),
  size: query.size ?? 20,
  page: query.page ?? 1,
});

export function orderHandlers(orders: OrderService): OperationHandlers {
  const transition = async (
    ctx: AppContext,
    by: Account | PosSignature,
    orderId: string,
    trigger: OrderTrigger,
    title: string,
  ) => {
    const { order, changed } = await orders.transition(by, orderId, trigger);
    ctx.body = envelope(
      title,
      order,
      changed ? `the order is now ${order.status}` : `the order was already ${order.status}; nothing changed`,
    );
  };
  return {
    createOrder: async ({ account, body }, ctx) => {
      const order = await orders.create(account, body);
      ctx.status = 201;
      ctx.body = envelope('Order created', order);
    },
    getOrder: async ({ account, params }, ctx) => {
      ctx.body = envelope('Order', await orders.get(account, params.orderId));
    },
    listMerchantOrders: async ({ account, query }, ctx) => {
      ctx.body = envelope('Orders', await orders.list({ merchantId: account.merchant_id }, listQuery(query)));
    },
    listTerminalOrders: async ({ signature: { terminal }, query }, ctx) => {
      const where = { merchantId: terminal.merchantId, terminal: terminal.serialNumber };
      ctx.body = envelope('Terminal orders', await orders.list(where, listQuery(query)));
    },
    invalidateOrder: async ({ account, params, body }, ctx) => {
      const reason = body?.reason;
      const trigger: OrderTrigger = { kind: 'invalidation', ...(reason !== undefined ? { reason } : {}) };
      await transition(ctx, account, params.orderId, trigger, 'Order invalidation');
    },
    commitOrderPayment: async ({ signature, params, body }, ctx) => {
      await transition(ctx, signature, params.orderId, { kind: 'commit', ...body }, 'Payment confirmation');
    },
    commitOrderVoid: async ({ signature, params }, ctx) => {
      await transition(ctx, signature, params.orderId, { kind: 'invalidation/commit' }, 'Void confirmation');
    },
  };
}
