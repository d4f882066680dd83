import type { Account } from '../accounts/account.js';
import { appError } from '../errors.js';
import type { OperationHandlers } from '../http/operation.js';
import type { AccountService } from '../accounts/account-service.js';
import { tracePage } from '../trace/trace-pages.js';
import { listConsoleSessions } from './session-list.js';
import type { AppContext } from '../http/context.js';
import type { SessionService } from '../sessions/session-service.js';
import { admissibleOutcomes } from '../sessions/session-machine.js';
import { publicSession } from '../sessions/session-view.js';
import type { Store } from '../store/store.js';
import { version } from '../version.js';
import { pageScript } from '../system/page-script.js';
import { consolePage } from './console-page.js';
import { fidelidad, fidelidadPage } from './fidelidad.js';
import { progress } from './progress.js';
import { publicEntry, type TraceStreams } from './trace-stream.js';
import { bearerToken } from '../http/authenticate.js';
import { hookUrls } from '../accounts/account.js';
import type { ScenarioRuns } from './scenario-runs.js';

type TraceFilters = { type?: string | undefined; session_id?: string | undefined };

/** The account's trace entries the filters ask for: the same for a read and for the stream. */
const traceWhere = (account: Account, query: TraceFilters) => ({
  account_id: account.account_id,
  ...(query.type ? { type: query.type } : {}),
  ...(query.session_id ? { session_id: query.session_id } : {}),
});

export interface ConsoleParts {
  store: Store;
  accounts: AccountService;
  sessions: SessionService;
  publicUrl: (ctx: AppContext) => string;
  /** The server's settings, for the fidelity page. */
  settings: Parameters<typeof fidelidad>[0];
  streams: TraceStreams;
  scenarios: { runs: ScenarioRuns; selfUrl: (ctx: AppContext) => string };
}

/** A console list's page when the request names no limit (the document's default). */
const DEFAULT_LIMIT = 100;

const consoleToken = (ctx: AppContext) => bearerToken(ctx.get('authorization')) ?? '';

/** The console's operations: its scenario runs, its trace, its lists and its pages. */
export function consoleHandlers(parts: ConsoleParts): OperationHandlers {
  return { ...scenarioRunHandlers(parts), ...traceHandlers(parts), ...viewHandlers(parts) };
}

/** Scenario runs started from the console, on the account's own key. */
function scenarioRunHandlers({ publicUrl, scenarios }: ConsoleParts): OperationHandlers {
  return {
    listConsoleScenarios: async (_request, ctx) => {
      ctx.body = { data: await scenarios.runs.list() };
    },
    startConsoleScenarioRun: async ({ account, params: { name } }, ctx) => {
      const given = {
        account_id: account.account_id,
        merchant_id: account.merchant_id,
        key: account.keys[0]!,
        console_token: consoleToken(ctx),
        hooks: hookUrls(publicUrl(ctx), account.account_id),
      };
      const outcome = await scenarios.runs.start(name, given, scenarios.selfUrl(ctx), `${publicUrl(ctx)}/console`);
      if ('refused' in outcome) {
        if (outcome.refused === 'unknown') throw appError('NOT_FOUND', `scenario ${name}`);
        if (outcome.refused === 'busy') throw appError('SCENARIO_RUNNING', outcome.message);
        throw appError('VALIDATION_FAILED', [{ in: 'path', pointer: '/name', message: outcome.message }]);
      }
      ctx.status = 202;
      ctx.body = outcome.started;
    },
    getConsoleScenarioRun: ({ account, params: { run_id: runId } }, ctx) => {
      const run = scenarios.runs.get(account.account_id, runId);
      if (!run) throw appError('NOT_FOUND', `scenario run ${runId}`);
      ctx.body = run;
    },
  };
}

/** The trace: pages of it, and its live stream. */
function traceHandlers({ store, streams }: ConsoleParts): OperationHandlers {
  return {
    getConsoleTrace: async ({ account, query }, ctx) => {
      const limit = query.limit ?? DEFAULT_LIMIT;
      let page;
      if (query.result) {
        if (query.session_id)
          throw appError('VALIDATION_FAILED', [
            { in: 'query', pointer: '/result', message: 'result does not combine with session_id' },
          ]);
        // Attempts by how they ended: through the (account, type, result) index, in write order.
        const where = { account_id: account.account_id, type: 'webhook.attempt', result: query.result };
        page = await tracePage(store, where, { limit, after: query.after, firstBy: 'order' });
      } else {
        // Listed by `at` (when it happened); polled by `order` (when it was written).
        page = await tracePage(store, traceWhere(account, query), { limit, after: query.after, firstBy: 'listed' });
      }
      ctx.body = { data: page.entries.map(publicEntry), cursor: page.cursor };
    },
    streamConsoleTrace: async ({ account, query }, ctx) => {
      await streams.serve(ctx, traceWhere(account, query), query.after, query.max_seconds, consoleToken(ctx));
    },
  };
}

/** The sessions, the progress, the rate brake, and the console's pages and script. */
function viewHandlers({ store, accounts, sessions, publicUrl, settings }: ConsoleParts): OperationHandlers {
  const differences = fidelidad(settings);
  return {
    getConsoleSessions: async ({ account, query }, ctx) => {
      const current = await listConsoleSessions(store, sessions, account, {
        limit: query.limit ?? DEFAULT_LIMIT,
        page: query.page ?? 1,
        status: query.status,
        accreditation: query.accreditation,
        idPrefix: query.id_prefix,
      });
      ctx.body = { data: current.map((session) => publicSession(session, publicUrl(ctx))) };
    },
    getConsoleSession: async ({ account, params }, ctx) => {
      // As a status read has it (due dates applied), with the forced outcomes the rules admit now.
      const session = await sessions.read(account, params.session_id);
      ctx.body = { session: publicSession(session, publicUrl(ctx)), admissible_outcomes: admissibleOutcomes(session) };
    },
    getConsoleScript: async (_request, ctx) => {
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.body = await pageScript('console');
    },
    getConsoleProgress: async ({ account }, ctx) => {
      ctx.body = await progress(store, account);
    },
    setRateLimit: async ({ account, body: { per_minute } }, ctx) => {
      await accounts.setRateLimit(account.account_id, per_minute);
      ctx.body = { per_minute };
    },
    showConsole: (_request, ctx) => {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = consolePage;
    },
    getFidelidad: (_request, ctx) => {
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
