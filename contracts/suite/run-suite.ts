import { openApiDocument } from '../openapi.js';
import { oursOnlyOperations, type Profile } from '../profiles.js';
import { CheckStopped, type CheckContext } from './checks/check.js';
import {
  behaviouralChecks,
  checkCatalogue,
  skipReason,
  touches,
  type CheckInfo,
  type Selection,
} from './checks/catalogue.js';
import { checkServedDocument } from './checks/served-document.js';
import { coverageAllowList } from './coverage-allowlist.js';
import { Expectations, type FailedExpectation } from './expectations.js';
import { negativeRequests, rateLimitScenario, signedNegatives } from './negatives.js';
import { coverage, Recorder, type CoverageReport, type RecordedViolation } from './recorder.js';
import { mutatingScenarios, type ScenarioContext, type World } from './scenarios.js';
import { suiteClient, type RequestLimits, type SuiteResponse } from './suite-client.js';

export interface SuiteOptions extends Selection {
  baseUrl: string;
  /** An API token of an existing account, for read-only runs. */
  token?: string;
  consoleToken?: string;
  /** Create accounts, sessions, orders… (never against production). */
  allowMutations: boolean;
  /** `strict` (the default): this document as it is; `interface`: only what the interface fixes. */
  profile?: Profile;
  allowList?: Record<string, string>;
  log?: (line: string) => void;
  /** A request not answered within this long fails its check, naming it, and the run goes on (10 s by default). */
  requestTimeoutMs?: number;
  /** How long to wait, in real time, for background work (a delivery, an accreditation): 5 s by default. */
  settleMs?: number;
}

export interface CheckResult {
  id: string;
  title: string;
  source: string;
  outcome: 'passed' | 'failed' | 'skipped';
  /** Why it was skipped. */
  reason?: string;
  seconds: number;
}

export interface SuiteResult {
  profile: Profile;
  violations: RecordedViolation[];
  failures: FailedExpectation[];
  checks: CheckResult[];
  coverage: CoverageReport;
  /** Coverage is judged only on a whole strict run (no selection). */
  coverageJudged: boolean;
}

export function defaultAllowList(): Record<string, string> {
  return { ...coverageAllowList };
}

/** A check's outcome as one line that reads the same on a terminal and in a CI log: ✓ held, ✗ failed. */
const checkLine = (check: CheckResult, failed: number) =>
  `${check.outcome === 'passed' ? '✓' : '✗'} ${check.id} (${check.seconds.toFixed(1)} s)${failed > 0 ? `: ${failed} failed expectation(s)` : ''}`;

/** Runs the contract suite against any deployment of the interface. */
/** A setup failure in full the first time; after that, which check said it. */
function saidOnce(said: Map<string, string>, message: string, checkId: string): string {
  const first = said.get(message);
  if (first) return `the same setup failure as ${first} (said there)`;
  said.set(message, checkId);
  return message;
}

export async function runSuite(options: SuiteOptions): Promise<SuiteResult> {
  const profile = options.profile ?? 'strict';
  const recorder = new Recorder(profile);
  const failures: FailedExpectation[] = [];
  const log = options.log ?? (() => undefined);
  let current: CheckInfo = checkCatalogue[0]!;
  const operationOf = (response: SuiteResponse) =>
    recorder.operationFor(response.request.method, response.request.target.split('?')[0]!);
  const expectationsFor = (check: CheckInfo) =>
    new Expectations((failure) => failures.push(failure), check.id, check.source, operationOf);
  // Free-text problems of the document scenarios, and requests that got no answer, belong to the check running.
  const problem = (message: string) =>
    void expectationsFor(current).fail(null, '', 'what the scenario expects', message);
  const limits: RequestLimits = {
    timeoutMs: options.requestTimeoutMs ?? 10_000,
    noAnswer: (request: SuiteResponse['request'], reason: string) =>
      void expectationsFor(current).fail({ request, status: 0 } as SuiteResponse, '', 'an answer', reason),
  };
  const http = suiteClient(options.baseUrl, recorder, limits);
  const scenarioCtx: ScenarioContext = {
    http,
    baseUrl: options.baseUrl,
    recorder,
    problem,
    limits,
    profile,
    get expectations() {
      return expectationsFor(current);
    },
    ...(options.operations ? { operations: options.operations } : {}),
  };
  const settleMs = options.settleMs ?? 5_000;
  const oursOnly = profile === 'strict' ? new Set<string>() : oursOnlyOperations(openApiDocument);

  // Built once: a failure of the scenarios fails the checks that need the world too, without running them again.
  let world: Promise<World> | undefined;
  const worldOf = () => (world ??= mutatingScenarios(scenarioCtx));
  const runners: Record<string, () => Promise<void>> = {
    'document.read-only': async () => {
      for (const path of [
        '/health',
        '/openapi.json',
        '/fidelidad',
        '/console',
        '/console/app.js',
        '/pay/app.js',
        '/relay',
      ])
        await http('GET', path);
      const readWorld = { token: options.token ?? 'sk_none', consoleToken: options.consoleToken ?? 'ct_none' } as World;
      if (options.token) await http('GET', '/control/clock', { token: options.token });
      if (options.consoleToken) {
        const keys = await http('GET', '/console/keys', { token: options.consoleToken });
        for (const path of ['/console/trace?limit=5', '/console/sessions', '/console/progress'])
          await http('GET', path, { token: options.consoleToken });
        readWorld.accountId = /hooks\/([^/]+)\//.exec(keys.body?.hooks?.paid ?? '')?.[1] ?? 'acc_none';
      }
      await negativeRequests(scenarioCtx, readWorld, { mutations: false });
    },
    'document.scenarios': async () => void (await worldOf()),
    'document.negatives': async () => {
      const built = await worldOf();
      await negativeRequests(scenarioCtx, built, { mutations: true });
      await signedNegatives(scenarioCtx, built);
    },
    'document.rate-brake': () => rateLimitScenario(scenarioCtx),
    // Answers of operations that are ours alone were asked for by the scenarios, not by the interface: not held to a served document.
    'document.served': async () =>
      checkServedDocument(
        expectationsFor(current),
        await http('GET', '/openapi.json'),
        profile,
        recorder.answers.filter((a) => !oursOnly.has(recorder.operationFor(a.method, a.path))),
      ),
    ...Object.fromEntries(
      behaviouralChecks.map((check) => [
        check.id,
        () =>
          check.run({
            http,
            baseUrl: options.baseUrl,
            profile,
            expect: expectationsFor(current),
            settleMs,
          } satisfies CheckContext),
      ]),
    ),
  };
  // The served document is checked last, against every answer seen.
  const order = [
    ...checkCatalogue.filter((c) => c.id !== 'document.served'),
    checkCatalogue.find((c) => c.id === 'document.served')!,
  ];
  const checks: CheckResult[] = [];
  /** A setup that stopped a check, said once: the checks after it that stop the same way name the first. */
  const stoppedBy = new Map<string, string>();
  for (const check of order) {
    const reason = skipReason(check, { ...options, profile });
    if (reason) {
      checks.push({ id: check.id, title: check.title, source: check.source, outcome: 'skipped', reason, seconds: 0 });
      log(`- ${check.id} skipped: ${reason}`);
      continue;
    }
    current = check;
    const before = failures.length;
    const started = performance.now();
    try {
      await runners[check.id]!();
    } catch (error) {
      // A check that cannot go on fails; the run goes on with the next.
      expectationsFor(check).fail(
        null,
        '',
        'the check to run to its end',
        error instanceof CheckStopped
          ? saidOnce(stoppedBy, error.message, check.id)
          : `it stopped: ${(error as Error).stack ?? error}`,
      );
    }
    const ran: CheckResult = {
      id: check.id,
      title: check.title,
      source: check.source,
      outcome: failures.length > before ? 'failed' : 'passed',
      seconds: (performance.now() - started) / 1000,
    };
    checks.push(ran);
    log(checkLine(ran, failures.length - before));
  }
  // With --operation, answers of other operations are not this run's business.
  const violations = options.operations
    ? recorder.violations.filter((v) => touches({ operations: [v.operation] }, options.operations!))
    : recorder.violations;
  const selected = Boolean(options.checks || options.excludeChecks || options.operations);
  return {
    profile,
    violations,
    failures,
    checks,
    coverage: coverage(recorder, options.allowList ?? defaultAllowList()),
    coverageJudged: options.allowMutations && profile === 'strict' && !selected,
  };
}
