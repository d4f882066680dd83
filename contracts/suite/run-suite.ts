import { readFileSync } from 'node:fs';
import { coverage, Recorder, type CoverageReport, type RecordedViolation } from './recorder.js';
import { negativeRequests, rateLimitScenario, signedNegatives } from './negatives.js';
import { mutatingScenarios, type ScenarioContext, type World } from './scenarios.js';
import { suiteClient } from './suite-client.js';

export interface SuiteOptions {
  baseUrl: string;
  /** An API token of an existing account, for read-only runs. */
  token?: string;
  consoleToken?: string;
  /** Create accounts, sessions, orders… (never against production). */
  allowMutations: boolean;
  allowList?: Record<string, string>;
  log?: (line: string) => void;
  /** A request not answered within this long fails its check, naming it, and the run goes on (10 s by default). */
  requestTimeoutMs?: number;
}

export interface SuiteResult {
  violations: RecordedViolation[];
  problems: string[];
  coverage: CoverageReport;
}

export function defaultAllowList(): Record<string, string> {
  const raw = JSON.parse(readFileSync(new URL('./coverage-allowlist.json', import.meta.url), 'utf8')) as Record<string, string>;
  return Object.fromEntries(Object.entries(raw).filter(([key]) => !key.startsWith('//')));
}

/** Runs the contract suite against any deployment of the interface. */
export async function runSuite(options: SuiteOptions): Promise<SuiteResult> {
  const recorder = new Recorder();
  const problems: string[] = [];
  const problem = (message: string) => void problems.push(message);
  const limits = { timeoutMs: options.requestTimeoutMs ?? 10_000, problem };
  const ctx: ScenarioContext = { http: suiteClient(options.baseUrl, recorder, limits), baseUrl: options.baseUrl, recorder, problem, limits };
  const log = options.log ?? (() => undefined);
  try {
    if (options.allowMutations) {
      log('scenarios (creating an account and data)…');
      const world = await mutatingScenarios(ctx);
      log('negative requests generated from the document…');
      await negativeRequests(ctx, world, { mutations: true });
      await signedNegatives(ctx, world);
      log('the rate brake on every braked operation…');
      await rateLimitScenario(ctx);
    } else {
      log('read-only: public operations and negative GETs…');
      for (const path of ['/health', '/openapi.json', '/fidelidad', '/console', '/relay']) await ctx.http('GET', path);
      const world = { token: options.token ?? 'sk_none', consoleToken: options.consoleToken ?? 'ct_none' } as World;
      if (options.token) await ctx.http('GET', '/control/clock', { token: options.token });
      if (options.consoleToken) {
        const keys = await ctx.http('GET', '/console/keys', { token: options.consoleToken });
        for (const path of ['/console/trace?limit=5', '/console/sessions', '/console/progress']) await ctx.http('GET', path, { token: options.consoleToken });
        world.accountId = /hooks\/([^/]+)\//.exec(keys.body?.hooks?.paid ?? '')?.[1] ?? 'acc_none';
      }
      await negativeRequests(ctx, world, { mutations: false });
    }
  } catch (error) {
    problems.push(`the suite stopped: ${(error as Error).message}`);
  }
  return { violations: recorder.violations, problems, coverage: coverage(recorder, options.allowList ?? defaultAllowList()) };
}
