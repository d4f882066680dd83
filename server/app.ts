import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import { openApiDocument } from '../contracts/openapi.js';
import { SchemaValidator } from '../contracts/validator.js';
import { AccountService } from './accounts/account-service.js';
import { clockHandlers } from './clock/clock-routes.js';
import { AccountClock } from './clock/account-clock.js';
import { accountHandlers } from './provisioning/account-routes.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import { accessLog } from './http/access-log.js';
import { authenticate, requireToken } from './http/authenticate.js';
import { clientWentAway } from './http/client-went-away.js';
import { merchantScope } from './http/merchant-scope.js';
import { bindOperations } from './http/bind-operations.js';
import type { AppContext, AppState } from './http/context.js';
import { securityHeaders } from './http/security-headers.js';
import { TraceStreams } from './console/trace-stream.js';
import { errorHandler } from './http/error-handler.js';
import { readBody } from './http/read-body.js';
import { unmatchedRoute } from './http/unmatched-route.js';
import { validateRequest } from './http/validate-request.js';
import { silentLogger, type Logger } from './log.js';
import type { Store } from './store/store.js';
import { systemHandlers } from './system/routes.js';
import { OrderService } from './orders/order-service.js';
import { orderHandlers } from './orders/routes.js';
import { settlementHandlers } from './settlements/routes.js';
import { SettlementService } from './settlements/settlement-service.js';
import { posSignatureGuard } from './http/pos-signature-guard.js';
import { storeSignatureLedger } from './terminals/store-signature-ledger.js';
import { PosSignatures } from './terminals/pos-signatures.js';
import { terminalHandlers } from './provisioning/terminal-routes.js';
import { TerminalService } from './terminals/terminal-service.js';
import { AccreditationScheduler } from './sessions/accreditation-scheduler.js';
import { CatalogService } from './sessions/catalog.js';
import type { EventSink } from './sessions/events.js';
import { RelayHub } from './relay/relay-hub.js';
import { relayHandlers } from './relay/relay-routes.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { webhookHandlers } from './webhooks/routes.js';
import { purgeExpired } from './console/purge.js';
import { rateBrake, storeRateCounter } from './console/rate-brake.js';
import { consoleHandlers } from './console/routes.js';
import { ScenarioRuns } from './console/scenario-runs.js';
import { loadBundledScenarios } from '../contracts/clients/scenario/bundled.js';
import { payHandlers } from './pay/routes.js';
import { sessionHandlers } from './sessions/routes.js';
import { SessionService } from './sessions/session-service.js';
import { StopService } from './sessions/stop-service.js';
import { indexDeclarations } from './index-declarations.js';
import { deliveryParts } from './app-delivery.js';

export interface AppDeps {
  store: Store;
  /**
   * Whether this app is the one process on its store (the embedded store,
   * whose directory lock makes it so) or one of several instances sharing
   * it (PostgreSQL): then what they must agree on (the rate brake's counts,
   * who attempts a delivery) lives in the store.
   * `main` picks it with the store; the default is one process.
   */
  sharing?: 'one-process' | 'instances';
  clock: Clock;
  config: Config;
  log?: Logger;
  /**
   * Replaces the check of a security scheme of the document, for benches
   * and tests that measure or exercise a route without it. Code only: no
   * configuration reaches this.
   */
  securityGuards?: Partial<Record<string, Middleware<AppState>>>;
  /** Also told of every emitted event once durable (tests); the webhook dispatcher always is. */
  eventSink?: EventSink;
  /** The webhook attempt's 5 s limit as a signal; tests inject one they fire. */
  webhookSignalAfter?: (ms: number) => AbortSignal;
}

/** The Koa app with the background jobs `main.ts` starts and stops. */
export type SimulatorApp = Koa<AppState> & {
  jobs: {
    scheduler: AccreditationScheduler;
    dispatcher: WebhookDispatcher;
    relay: RelayHub;
    purge: () => Promise<number>;
    consoleStreams: TraceStreams;
  };
  /** Tells the app an origin it is reached at, once listening (loopback webhook routing). */
  addOrigin(origin: string): void;
  /** The domain services behind the routes, for in-process callers (the payment page, tests). */
  services: { sessions: SessionService };
};

/** Builds the whole backend as a Koa app; `main.ts` gives it real parts, tests their own. */
export function createApp(deps: AppDeps): SimulatorApp {
  const { store, clock, config, log = silentLogger } = deps;
  const parts = buildParts(deps);
  const guards = securityGuards(parts, deps.securityGuards ?? {});
  const router = new Router<AppState>();
  bindOperations(router, openApiDocument, operationHandlers(parts), {
    readBody: readBody(config.bodyLimitBytes),
    authenticate: (security) => authenticate(security, guards),
    validate: (entry) => validateRequest(openApiDocument, entry, parts.validators),
    scope: merchantScope,
    rateBrake: rateBrake(clock, parts.sharedState ? storeRateCounter(store) : undefined),
  });

  // The middleware, in the order a request meets it.
  const app = new Koa<AppState>();
  app.silent = true; // errors are logged below, without secrets, not by Koa's default printer
  app.use(accessLog(log));
  app.use(securityHeaders({ frameAncestors: config.frameAncestors }));
  app.use(errorHandler());
  app.use(router.routes());
  app.use(unmatchedRoute(router));
  app.on('error', (error: Error, ctx?: AppContext) => {
    if (clientWentAway(error))
      return log.debug('client went away before the answer ended', { method: ctx?.method, path: ctx?.path });
    log.error('unhandled error', { error: error.message, stack: error.stack, method: ctx?.method, path: ctx?.path });
  });
  const { scheduler, dispatcher, relay, consoleStreams, sessions, origins, listening } = parts;
  return Object.assign(app, {
    jobs: { scheduler, dispatcher, relay, consoleStreams, purge: () => purgeExpired(store, clock, config.dataTtlDays) },
    services: { sessions },
    addOrigin: (origin: string) => {
      origins.add(origin);
      listening.push(origin);
    },
  });
}

/** The parts behind the routes, each built once from its own options: services, jobs, where the app is served. */
function buildParts({
  store,
  sharing = 'one-process',
  clock,
  config,
  log = silentLogger,
  eventSink,
  webhookSignalAfter,
}: AppDeps) {
  const validators = {
    exact: new SchemaValidator(openApiDocument),
    coercing: new SchemaValidator(openApiDocument, { coerceTypes: true }),
  };
  const sharedState = sharing === 'instances';
  store.declareIndexes(indexDeclarations);
  const accounts = new AccountService(store, clock, config);
  /** Where this app is reached (its public URL) and served (serve.ts tells it). */
  const origins = new Set<string>(config.publicUrl ? [config.publicUrl] : []);
  const listening: string[] = [];
  const { receivers, relay, dispatcher } = deliveryParts({
    store,
    clock,
    config,
    log,
    accounts,
    origins,
    instance: sharedState ? randomUUID() : undefined,
    webhookSignalAfter,
  });
  const sink: EventSink = eventSink
    ? { emitted: (events) => (dispatcher.emitted(events), eventSink.emitted(events)) }
    : dispatcher;
  const sessions = new SessionService({
    store,
    clock,
    sink,
    accreditationDelayMs: config.accreditationDelayMs,
    checkInput: (value) =>
      validators.exact
        .check({ $ref: '#/components/schemas/SessionCreateRequest' }, value)
        .map((issue) => ({ in: 'body' as const, ...issue })),
  });
  const scheduler = new AccreditationScheduler(store, clock, sessions, log);
  let library: ReturnType<typeof loadBundledScenarios> | undefined;
  return {
    store,
    clock,
    config,
    validators,
    sharedState,
    accounts,
    origins,
    listening,
    receivers,
    relay,
    dispatcher,
    sessions,
    scheduler,
    terminals: new TerminalService(store, clock),
    catalog: new CatalogService(store, clock),
    stops: new StopService(store, clock),
    scenarioRuns: new ScenarioRuns(
      () => (library ??= loadBundledScenarios()),
      () => new Date(clock.now()),
    ),
    consoleStreams: new TraceStreams(store, (token) =>
      accounts.authenticate(token, ['console']).then(
        () => true,
        () => false,
      ),
    ),
    // Accepted signatures are records of the store, claimed with the request's own write where it has one: durable
    // before the answer on either store, so a restart, a crash included, neither refuses a fresh signature nor
    // accepts an old one.
    signatures: new PosSignatures({
      store,
      clock,
      toleranceSeconds: config.posSignatureToleranceSeconds,
      ledger: storeSignatureLedger(store),
    }),
  };
}

type Parts = ReturnType<typeof buildParts>;

/** The document's security schemes and what checks each; code may substitute one (benches, tests). */
function securityGuards(
  { accounts, signatures }: Parts,
  substitutes: Partial<Record<string, Middleware<AppState>>>,
): Record<string, Middleware<AppState>> {
  const guards: Record<string, Middleware<AppState>> = {
    apiBearer: requireToken(['api', 'login'], accounts),
    consoleBearer: requireToken(['console'], accounts),
    posSignature: posSignatureGuard(signatures),
  };
  for (const [scheme, guard] of Object.entries(substitutes)) if (guard) guards[scheme] = guard;
  return guards;
}

/** Every operation of the document, by its operationId, to the part that answers it. */
function operationHandlers(parts: Parts) {
  const { store, clock, config, accounts, terminals, signatures, sessions, catalog, stops, dispatcher } = parts;
  // Koa 3's ctx.origin is the Origin request header, not this server's origin.
  const publicUrl = (ctx: AppContext) => config.publicUrl ?? `${ctx.protocol}://${ctx.host}`;
  return {
    ...systemHandlers(store, openApiDocument, performance.now(), publicUrl),
    ...accountHandlers(accounts, publicUrl),
    // What a clock move made due happens before the answer: accreditations, webhook attempts, the purge.
    ...clockHandlers(
      new AccountClock(store, clock, async (accountId) => {
        await parts.scheduler.runDue(accountId);
        await dispatcher.runDue();
        await purgeExpired(store, clock, config.dataTtlDays, accountId);
      }),
    ),
    ...terminalHandlers(terminals),
    ...orderHandlers(new OrderService(store, clock, signatures)),
    ...settlementHandlers(new SettlementService(store, clock, signatures), terminals),
    ...sessionHandlers({ store, clock, catalog, sessions, stops, publicUrl }),
    ...webhookHandlers(parts.receivers, dispatcher),
    ...relayHandlers(parts.relay, store),
    ...consoleHandlers({
      store,
      accounts,
      sessions,
      publicUrl,
      settings: config,
      streams: parts.consoleStreams,
      scenarios: {
        runs: parts.scenarioRuns,
        // The console's runs call this server where it listens, not through the public URL's proxies.
        selfUrl: (ctx) => parts.listening[0] ?? publicUrl(ctx),
      },
    }),
    ...payHandlers(store, clock, sessions),
  };
}
