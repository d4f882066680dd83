import type { OperationHandlers } from '../http/bind-operations.js';
import type { AppContext } from '../http/context.js';
import type { CreateOrderInput, ListQuery, OrderService } from './order-service.js';
import type { Order } from './order.js';
import type { Trigger } from './transitions.js';

const envelope = (title: string, data: Order | Order[], detail?: string) => ({
  title,
  ...(detail ? { detail } : {}),
  data,
});

/** `ordersOf(ctx)`: the order service over the store the request writes through. */
export function orderHandlers(ordersOf: (ctx: AppContext) => OrderService): OperationHandlers {
  const transition = async (ctx: AppContext, trigger: Trigger, title: string) => {
    const { order, changed } = await ordersOf(ctx).transition(
      ctx.state.account!,
      ctx.state.params!.orderId!,
      trigger,
      ctx.state.terminal?.serialNumber,
    );
    ctx.body = envelope(
      title,
      order,
      changed ? `the order is now ${order.status}` : `the order was already ${order.status}; nothing changed`,
    );
  };
  return {
    createOrder: async (ctx) => {
      const order = await ordersOf(ctx).create(ctx.state.account!, ctx.state.body as CreateOrderInput);
      ctx.status = 201;
      ctx.body = envelope('Order created', order);
    },
    getOrder: async (ctx) => {
      ctx.body = envelope('Order', await ordersOf(ctx).get(ctx.state.account!, ctx.state.params!.orderId!));
    },
    listMerchantOrders: async (ctx) => {
      const list = await ordersOf(ctx).list({ merchantId: ctx.state.account!.merchant_id }, listQuery(ctx));
      ctx.body = envelope('Orders', list);
    },
    listTerminalOrders: async (ctx) => {
      const terminal = ctx.state.terminal!;
      const list = await ordersOf(ctx).list(
        { merchantId: terminal.merchantId, terminal: terminal.serialNumber },
        listQuery(ctx),
      );
      ctx.body = envelope('Terminal orders', list);
    },
    invalidateOrder: async (ctx) => {
      const reason = (ctx.state.body as { reason?: string } | undefined)?.reason;
      await transition(
        ctx,
        { kind: 'invalidation', ...(reason !== undefined ? { reason } : {}) },
        'Order invalidation',
      );
    },
    commitOrderPayment: async (ctx) => {
      const body = ctx.state.body as { authorizationCode: string; paidAt: string; amount?: number };
      await transition(ctx, { kind: 'commit', ...body }, 'Payment confirmation');
    },
    commitOrderVoid: async (ctx) => {
      await transition(ctx, { kind: 'invalidation/commit' }, 'Void confirmation');
    },
  };
}

function listQuery(ctx: AppContext): ListQuery {
  const query = ctx.state.query as { status?: ListQuery['status']; size?: number; page?: number };
  return { ...(query.status ? { status: query.status } : {}), size: query.size ?? 20, page: query.page ?? 1 };
}
