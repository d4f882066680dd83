import type { Account } from '../accounts/account.js';
import type { OperationHandlers } from '../http/bind-operations.js';
import type { AppContext } from '../http/context.js';
import { resetAccount } from './reset.js';
import type { Store } from '../store/store.js';
import type { Clock } from '../clock.js';
import { publicAgreement, publicPartner, publicSplitAgreement, type CatalogService } from './catalog.js';
import type { SessionInput } from './session-input.js';
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
  const account = (ctx: AppContext): Account => ctx.state.account!;
  const param = (ctx: AppContext, name: string) => ctx.state.params![name]!;
  const body = <T>(ctx: AppContext) => ctx.state.body as T;
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
    createAgreement: async (ctx) =>
      created(ctx, publicAgreement(await catalog.createAgreement(account(ctx), body(ctx)))),
    createPartner: async (ctx) => created(ctx, publicPartner(await catalog.createPartner(account(ctx), body(ctx)))),
    createSplitAgreement: async (ctx) =>
      created(ctx, publicSplitAgreement(await catalog.createSplitAgreement(account(ctx), body(ctx)))),
    createButtonSession: async (ctx) =>
      created(ctx, view(ctx)(await sessions.create(account(ctx), body<SessionInput>(ctx), 'button'))),
    createRequestBatch: async (ctx) => {
      const { batch, sessions: list } = await sessions.createRequestBatch(
        account(ctx),
        body<{ sessions: SessionInput[] }>(ctx).sessions,
      );
      created(ctx, { batch_id: batch.batch_id, sessions: list.map(view(ctx)) });
    },
    getRequestBatch: async (ctx) => {
      const { batch, sessions: list } = await sessions.getBatch(account(ctx), param(ctx, 'batch_id'));
      ctx.body = { batch_id: batch.batch_id, sessions: list.map(view(ctx)) };
    },
    getPaymentSession: async (ctx) => {
      ctx.body = view(ctx)(await sessions.read(account(ctx), param(ctx, 'session_id')));
    },
    expirePaymentSession: async (ctx) => {
      ctx.body = view(ctx)(await sessions.expire(account(ctx), param(ctx, 'session_id')));
    },
    createStop: async (ctx) => created(ctx, publicStop(await stops.create(account(ctx), body(ctx)))),
    listStops: async (ctx) => {
      ctx.body = { data: (await stops.list(account(ctx))).map(publicStop) };
    },
    getStop: async (ctx) => {
      ctx.body = publicStop(await stops.get(account(ctx), param(ctx, 'stop_id')));
    },
    deleteStop: async (ctx) => {
      await stops.delete(account(ctx), param(ctx, 'stop_id'));
      ctx.status = 204;
    },
    reorderStops: async (ctx) => {
      ctx.body = {
        data: (await stops.reorder(account(ctx), body<{ stop_ids: string[] }>(ctx).stop_ids)).map(publicStop),
      };
    },
    addStopSessions: async (ctx) => {
      const request = body<{ sessions: unknown[]; continue_on_error?: boolean }>(ctx);
      const results = await sessions.createForStop(
        account(ctx),
        param(ctx, 'stop_id'),
        request.sessions,
        request.continue_on_error ?? false,
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
    updateStopMock: async (ctx) => mock(ctx, stopMocks.stop),
    getStopHistoryMock: async (ctx) => mock(ctx, stopMocks.history),
    queryStopsMock: async (ctx) => mock(ctx, stopMocks.query),
    forceSessionOutcome: async (ctx) => {
      const { leg, outcome } = body<{ leg: 1 | 2; outcome: string }>(ctx);
      ctx.body = view(ctx)(await sessions.force(account(ctx), param(ctx, 'session_id'), leg, outcome));
    },
    resetAccount: async (ctx) => {
      const deleted = await resetAccount(store, clock, account(ctx).account_id);
      ctx.body = { status: 'reset', deleted };
    },
  };
}
