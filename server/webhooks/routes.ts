import { AppError } from '../errors.js';
import type { OperationHandlers } from '../http/bind-operations.js';
import type { WebhookDispatcher } from './dispatcher.js';
import { FAILS_ON_PURPOSE, type ReceiverKind, type Receivers } from './receivers.js';

export function webhookHandlers(receivers: Receivers, dispatcher: WebhookDispatcher): OperationHandlers {
  return {
    // The four default receivers (receivePaidWebhook…): the receiver is the path's last segment.
    receiveWebhook: async (ctx) => {
      const headers = Object.fromEntries(
        Object.entries(ctx.headers).map(([name, value]) => [
          name.toLowerCase(),
          Array.isArray(value) ? value.join(', ') : (value ?? ''),
        ]),
      );
      const status = await receivers.receive(
        ctx.state.params!.account_id!,
        ctx.path.slice(ctx.path.lastIndexOf('/') + 1) as ReceiverKind,
        { rawBody: ctx.state.rawBody ?? Buffer.alloc(0), headers },
      );
      if (status >= 500) throw new AppError('RECEIVER_FAILS_ON_PURPOSE', FAILS_ON_PURPOSE);
      ctx.status = status;
      ctx.body = { received: true };
    },
    resendWebhook: async (ctx) => {
      const to = (ctx.state.body as { url?: unknown } | undefined)?.url;
      ctx.body = await dispatcher.resend(
        ctx.state.account!,
        ctx.state.params!.event_id!,
        typeof to === 'string' ? to : undefined,
      );
    },
    listFailedWebhooks: async (ctx) => {
      const sessionId = ctx.query.session_id;
      ctx.body = await dispatcher.failedEvents(
        ctx.state.account!,
        typeof sessionId === 'string' && sessionId ? sessionId : undefined,
      );
    },
    resendFailedWebhooks: async (ctx) => {
      const sessionId = (ctx.state.body as { session_id?: string } | undefined)?.session_id;
      ctx.body = await dispatcher.resendFailed(ctx.state.account!, sessionId);
    },
    openRelay: async (ctx) => {
      ctx.set('Upgrade', 'websocket');
      throw new AppError(
        'UPGRADE_REQUIRED',
        'GET /relay is a WebSocket endpoint; connect with a WebSocket client (for example svc-relay)',
      );
    },
  };
}
