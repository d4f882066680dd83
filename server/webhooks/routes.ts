import { appError } from '../errors.js';
import type { OperationHandlers } from '../http/operation.js';
import type { WebhookDispatcher } from './dispatcher.js';
import { FAILS_ON_PURPOSE, type ReceiverKind, type Receivers } from './receivers.js';

export function webhookHandlers(receivers: Receivers, dispatcher: WebhookDispatcher): OperationHandlers {
  return {
    // The four default receivers (receivePaidWebhook…): the receiver is the path's last segment.
    receiveWebhook: async ({ params }, ctx) => {
      const headers = Object.fromEntries(
        Object.entries(ctx.headers).map(([name, value]) => [
          name.toLowerCase(),
          Array.isArray(value) ? value.join(', ') : (value ?? ''),
        ]),
      );
      const status = await receivers.receive(
        params.account_id,
        ctx.path.slice(ctx.path.lastIndexOf('/') + 1) as ReceiverKind,
        { rawBody: ctx.state.rawBody ?? Buffer.alloc(0), headers },
      );
      if (status >= 500) throw appError('RECEIVER_FAILS_ON_PURPOSE', FAILS_ON_PURPOSE);
      ctx.status = status;
      ctx.body = { received: true };
    },
    resendWebhook: async ({ account, params, body }, ctx) => {
      ctx.body = await dispatcher.resend(account, params.event_id, body?.url);
    },
    listFailedWebhooks: async ({ account, query }, ctx) => {
      ctx.body = await dispatcher.failedEvents(account, query.session_id || undefined);
    },
    resendFailedWebhooks: async ({ account, body }, ctx) => {
      ctx.body = await dispatcher.resendFailed(account, body?.session_id);
    },
    openRelay: (_request, ctx) => {
      ctx.set('Upgrade', 'websocket');
      throw appError(
        'UPGRADE_REQUIRED',
        'GET /relay is a WebSocket endpoint; connect with a WebSocket client (for example svc-relay)',
      );
    },
  };
}
