import type { Account } from '../accounts/account.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import type { OperationHandlers } from '../http/bind-operations.js';
import type { AppContext } from '../http/context.js';
import type { SessionService } from '../sessions/session-service.js';
import { admissibleOutcomes } from '../sessions/session-machine.js';
import { publicSession } from '../sessions/session-view.js';
import type { SessionRecord } from '../sessions/session.js';
import type { Store } from '../store/store.js';
import type { TraceEntry } from '../trace/trace.js';
import { version } from '../version.js';
import { consoleApp } from './console-app.js';
import { consolePage } from './console-page.js';
import { fidelidad, fidelidadPage } from './fidelidad.js';
import { progress } from './progress.js';
import { publicEntry, type TraceStreams } from './trace-stream.js';
import { bearerToken } from '../http/authenticate.js';
import { hookUrls } from '../accounts/account.js';
import type { ScenarioRuns } from './scenario-runs.js';

type TraceFilters = { type?: string; session_id?: string; result?: 'succeeded' | 'failed' };

/** The account's trace entries the filters ask for: the same for a read and for the stream. */
const traceWhere = (ctx: AppContext, query: TraceFilters) => ({
  account_id: ctx.state.account!.account_id,
  ...(query.type ? { type: query.type } : {}),
  ...(query.session_id ? { session_id: query.session_id } : {}),
});

export function consoleHandlers(
  store: Store,
  sessions: SessionService,
  publicUrl: (ctx: AppContext) => string,
  settings: Parameters<typeof fidelidad>[0],
  streams: TraceStreams,
  scenarios: { runs: ScenarioRuns; selfUrl: (ctx: AppContext) => string },
): OperationHandlers {
  const differences = fidelidad(settings);
  return {
    listConsoleScenarios: async (ctx) => {
      ctx.body = { data: await scenarios.runs.list() };
    },
    startConsoleScenarioRun: async (ctx) => {
      const account = ctx.state.account!;
      const { name } = ctx.params as { name: string };
      const given = {
        account_id: account.account_id,
        merchant_id: account.merchant_id,
        key: account.keys[0]!,
        console_token: bearerToken(ctx.get('authorization'))!,
        hooks: hookUrls(publicUrl(ctx), account.account_id),
      };
      const outcome = await scenarios.runs.start(name, given, scenarios.selfUrl(ctx), `${publicUrl(ctx)}/console`);
      if ('refused' in outcome) {
        if (outcome.refused === 'unknown') throw new NotFoundError(`scenario ${name}`);
        if (outcome.refused === 'busy') throw new ConflictError('SCENARIO_RUNNING', outcome.message);
        throw new ValidationError([{ in: 'path', pointer: '/name', message: outcome.message }]);
      }
      ctx.status = 202;
      ctx.body = outcome.started;
    },
    getConsoleScenarioRun: async (ctx) => {
      const { run_id: runId } = ctx.params as { run_id: string };
      const run = scenarios.runs.get(ctx.state.account!.account_id, runId);
      if (!run) throw new NotFoundError(`scenario run ${runId}`);
      ctx.body = run;
    },
    getConsoleTrace: async (ctx) => {
      const query = ctx.state.query as TraceFilters & { limit?: number; after?: string };
      const limit = query.limit ?? 100;
      if (query.result) {
        // Attempts by how they ended: through the (account, type, result) index, in write order.
        if (query.session_id)
          throw new ValidationError([
            { in: 'query', pointer: '/result', message: 'result does not combine with session_id' },
          ]);
        const where = { account_id: ctx.state.account!.account_id, type: 'webhook.attempt', result: query.result };
        const entries = query.after
          ? (
              await store.list<TraceEntry>('trace', {
                where,
                range: { field: 'order', min: Number(query.after) + 1 },
                orderBy: { field: 'order', direction: 'asc' },
                limit,
              })
            ).reverse()
          : await store.list<TraceEntry>('trace', { where, orderBy: { field: 'order', direction: 'desc' }, limit });
        const newest = entries.reduce(
          (most, entry) => Math.max(most, entry.order),
          query.after ? Number(query.after) : 0,
        );
        ctx.body = { data: entries.map(publicEntry), cursor: String(newest) };
        return;
      }
      const where = traceWhere(ctx, query);
      // Listed by `at` (when it happened); polled by `order` (when it was written: an attempt's entry is written when it ends).
      const entries = query.after
        ? (
            await store.list<TraceEntry>('trace', {
              where,
              range: { field: 'order', min: Number(query.after) + 1 },
              orderBy: { field: 'order', direction: 'asc' },
              limit,
            })
          ).reverse()
        : await store.list<TraceEntry>('trace', { where, orderBy: { field: 'listed', direction: 'desc' }, limit });
      const newest = entries.reduce(
        (most, entry) => Math.max(most, entry.order),
        query.after ? Number(query.after) : 0,
      );
      ctx.body = { data: entries.map(publicEntry), cursor: String(newest) };
    },
    streamConsoleTrace: async (ctx) => {
      const query = ctx.state.query as TraceFilters & { after?: string; max_seconds?: number };
      const where = traceWhere(ctx, query);
      await streams.serve(ctx, where, query.after, query.max_seconds, bearerToken(ctx.get('authorization'))!);
    },
    getConsoleSessions: async (ctx) => {
      const account = ctx.state.account!;
      const {
        limit = 100,
        page = 1,
        status,
        accreditation,
        id_prefix: prefix,
      } = ctx.state.query as {
        limit?: number;
        page?: number;
        status?: string;
        accreditation?: string;
        id_prefix?: string;
      };
      const offset = (page - 1) * limit;
      let stored: SessionRecord[];
      if (prefix !== undefined) {
        // The ids that start with it: a range of the (account, session_id) index, in id order.
        if (status || accreditation)
          throw new ValidationError([
            { in: 'query', pointer: '/id_prefix', message: 'id_prefix does not combine with status or accreditation' },
          ]);
        const range = { field: 'session_id', min: prefix, max: `${prefix}\uffff` };
        stored = await store.list<SessionRecord>('sessions', {
          where: { account_id: account.account_id },
          range,
          orderBy: { field: 'session_id', direction: 'asc' },
          limit,
          offset,
        });
      } else {
        const where = {
          account_id: account.account_id,
          ...(status ? { status } : {}),
          ...(accreditation ? { accreditation_status: accreditation } : {}),
        };
        stored = await store.list<SessionRecord>('sessions', {
          where,
          orderBy: { field: 'created_at', direction: 'desc' },
          limit,
          offset,
        });
      }
      // Read each through the session service, so due dates apply as in a status read.
      const current = await Promise.all(stored.map((session) => sessions.read(account, session.session_id)));
      ctx.body = { data: current.map((session) => publicSession(session, publicUrl(ctx))) };
    },
    getConsoleSession: async (ctx) => {
      // As a status read has it (due dates applied), with the forced outcomes the rules admit now.
      const session = await sessions.read(ctx.state.account!, ctx.state.params!.session_id!);
      ctx.body = { session: publicSession(session, publicUrl(ctx)), admissible_outcomes: admissibleOutcomes(session) };
    },
    getConsoleScript: async (ctx) => {
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.body = await consoleApp();
    },
    getConsoleProgress: async (ctx) => {
      ctx.body = await progress(store, ctx.state.account!);
    },
    setRateLimit: async (ctx) => {
      const { per_minute } = ctx.state.body as { per_minute: number | null };
      const id = ctx.state.account!.account_id;
      await store.transact(async (tx) => {
        const account = (await tx.get<Account>('accounts', id))!;
        tx.put('accounts', id, { ...account, rate_limit_per_minute: per_minute });
      });
      ctx.body = { per_minute };
    },
    showConsole: async (ctx) => {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = consolePage;
    },
    getFidelidad: async (ctx) => {
      // A browser gets the page; a client asking for JSON (or for anything) gets JSON.
      ctx.vary('Accept');
      if (ctx.accepts('application/json', 'text/html') === 'text/html') {
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = fidelidadPage(version, differences);
      } else {
        ctx.body = { version, differences };
      }
    },
  };
}
