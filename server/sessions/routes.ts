import type { OperationHandlers } from '../http/operation.js';
import type { AppContext } from '../http/context.js';
import { resetAccount } from './reset.js';
import type { Store } from '../store/store.js';
import type { Clock } from '../clock.js';
import { publicAgreement, publicPartner, publicSplitAgreement, type CatalogService } from './catalog.js';
import type { SessionService } from './session-service.js';
import { publicSession } from './session-view.js';
import type { SessionRecord } from './session.js';
import { publicStop, stopMocks, type StopService } from './stop-service.js';

export interface SessionDeps {
  store: Store;
  clock: Clock;
  catalog: CatalogService;
  sessions: SessionService;
  stops: StopService;
  publicUrl: (ctx: AppContext) => string;
}

/** The 17 operations of INTERFACE.md §5, the /payment-sessions read, and the session control plane. */
export function sessionHandlers({ store, clock, catalog, sessions, stops, publicUrl }: SessionDeps): OperationHandlers {
  const view = (ctx: AppContext) => (session: SessionRecord) => publicSession(session, publicUrl(ctx));
  const created = (ctx: AppContext, value: unknown) => {
    ctx.status = 201;
    ctx.body = value;
  };
  const mock = (ctx: AppContext, value: unknown) => {
    ctx.set('x-svc-sim', 'mock');
    ctx.body = value;
  };

  return {
    createAgreement: async ({ account, body }, ctx) =>
      created(ctx, publicAgreement(await catalog.createAgreement(account, body))),
    createPartner: async ({ account, body }, ctx) =>
      created(ctx, publicPartner(await catalog.createPartner(account, body))),
    createSplitAgreement: async ({ account, body }, ctx) =>
      created(ctx, publicSplitAgreement(await catalog.createSplitAgreement(account, body))),
    createButtonSession: async ({ account, body }, ctx) =>
      created(ctx, view(ctx)(await sessions.create(account, body, 'button'))),
    createRequestBatch: async ({ account, body }, ctx) => {
      const { batch, sessions: list } = await sessions.createRequestBatch(account, body.sessions);
      created(ctx, { batch_id: batch.batch_id, sessions: list.map(view(ctx)) });
    },
    getRequestBatch: async ({ account, params }, ctx) => {
      const { batch, sessions: list } = await sessions.getBatch(account, params.batch_id);
      ctx.body = { batch_id: batch.batch_id, sessions: list.map(view(ctx)) };
    },
    getPaymentSession: async ({ account, params }, ctx) => {
      ctx.body = view(ctx)(await sessions.read(account, params.session_id));
    },
    expirePaymentSession: async ({ account, params }, ctx) => {
      ctx.body = view(ctx)(await sessions.expire(account, params.session_id));
    },
    createStop: async ({ account, body }, ctx) => created(ctx, publicStop(await stops.create(account, body))),
    listStops: async ({ account }, ctx) => {
      ctx.body = { data: (await stops.list(account)).map(publicStop) };
    },
    getStop: async ({ account, params }, ctx) => {
      ctx.body = publicStop(await stops.get(account, params.stop_id));
    },
    deleteStop: async ({ account, params }, ctx) => {
      await stops.delete(account, params.stop_id);
      ctx.status = 204;
    },
    reorderStops: async ({ account, body }, ctx) => {
      ctx.body = { data: (await stops.reorder(account, body.stop_ids)).map(publicStop) };
    },
    addStopSessions: async ({ account, params, body }, ctx) => {
      const results = await sessions.createForStop(
        account,
        params.stop_id,
        body.sessions,
        body.continue_on_error ?? false,
      );
      ctx.status = results.every((result) => result.status === 201) ? 201 : 207;
      ctx.body = {
        results: results.map((result) =>
          result.status === 201
            ? { index: result.index, status: 201, session: view(ctx)(result.session) }
            : { index: result.index, status: result.status, error: result.error.toBody() },
        ),
      };
    },
    updateStopMock: (_request, ctx) => mock(ctx, stopMocks.stop),
    getStopHistoryMock: (_request, ctx) => mock(ctx, stopMocks.history),
    queryStopsMock: (_request, ctx) => mock(ctx, stopMocks.query),
    forceSessionOutcome: async ({ account, params, body: { leg, outcome } }, ctx) => {
      ctx.body = view(ctx)(await sessions.force(account, params.session_id, leg, outcome));
    },
    resetAccount: async ({ account }, ctx) => {
      const deleted = await resetAccount(store, clock, account.account_id);
      ctx.body = { status: 'reset', deleted };
    },
  };
}
