import { randomBytes } from 'node:crypto';
import type { NamedScenario } from '../../contracts/clients/scenario/bundled.js';
import { raceOrderOf, takenFirst, type Side } from '../../contracts/clients/scenario/race-order.js';
import { runScenario, type StepOutcome } from '../../contracts/clients/scenario/run-scenario.js';
import { isReceiver, isRelay, isTogether, type Scenario } from '../../contracts/clients/scenario/scenario-format.js';

// The console's Scenarios panel: a bundled scenario played by the server
// against itself on the operator's own account (given to the runner, so the
// steps that would register an account are not sent), its steps kept as
// they come for the page to read. A run is a demonstration, not a record:
// it lives in this process, the last RUNS_KEPT of each account.

const RUNS_KEPT = 20;

/** The operator's account as /console/register would have answered it. */
export interface GivenAccount {
  account_id: string;
  merchant_id: string;
  key: { token: string; webhook_secret: string };
  console_token: string;
  hooks: Record<string, string>;
}

export interface ScenarioRunView {
  run_id: string;
  scenario: string;
  status: 'running' | 'passed' | 'failed';
  started_at: string;
  ended_at?: string;
  steps: StepOutcome[];
  link: string;
  order?: { order_id: string; status: string; taken_first: Side };
}

/** Requests that would undo the operator's own session of the console: the scenario runs on their account. */
const OPERATOR_UNSAFE: Array<{ request: RegExp; because: string }> = [
  { request: /^\/api\/svcpagos\/login$/, because: "it logs in, which replaces the operator's console token" },
  { request: /^\/(?:control|__test__)\/reset$/, because: "it resets the account, deleting the operator's data" },
];

/** Why the console does not run a scenario on the operator's account, if it does not. */
export function notRunnableBecause(scenario: Scenario): string | undefined {
  if (scenario.steps.some((step) => isRelay(step) || isReceiver(step)))
    return "it opens a relay for the account's key (which would replace the operator's own relay) to a receiver on the runner's machine: run it with svc-scenario";
  const requests = scenario.steps.flatMap((step) => (isTogether(step) ? step.together : [step]));
  for (const { request, because } of OPERATOR_UNSAFE)
    if (requests.some((step) => 'request' in step && step.request && request.test(step.request.path.split('?')[0]!)))
      return `${because}: run it with svc-scenario`;
  return undefined;
}

export type StartOutcome =
  { started: ScenarioRunView } | { refused: 'unknown' | 'busy' | 'not-runnable'; message: string };

export class ScenarioRuns {
  private readonly runs = new Map<string, { accountId: string; view: ScenarioRunView }>();
  private readonly recent = new Map<string, string[]>();

  constructor(
    private readonly library: () => Promise<NamedScenario[]>,
    private readonly now: () => Date,
  ) {}

  async list() {
    return (await this.library()).map(({ name, scenario }) => {
      const because = notRunnableBecause(scenario);
      return {
        name,
        description: scenario.description,
        surfaces: scenario.surfaces ?? [],
        requires: scenario.requires ?? [],
        // Counted as a run reports them: each request of a group sent together is a step of its own.
        steps: scenario.steps.flatMap((step) => (isTogether(step) ? step.together : [step])).length,
        runnable: because === undefined,
        ...(because ? { not_runnable_because: because } : {}),
      };
    });
  }

  /** Starts `name` on `account` against the server at `baseUrl`; the run goes on after this answers. */
  async start(name: string, account: GivenAccount, baseUrl: string, consoleUrl: string): Promise<StartOutcome> {
    const found = (await this.library()).find((each) => each.name === name);
    if (!found) return { refused: 'unknown', message: `no bundled scenario is named ${name}` };
    const because = notRunnableBecause(found.scenario);
    if (because) return { refused: 'not-runnable', message: `the console does not run ${name}: ${because}` };
    const mine = this.recent.get(account.account_id) ?? [];
    const running = mine.map((id) => this.runs.get(id)?.view).find((view) => view?.status === 'running');
    if (running)
      return { refused: 'busy', message: `${running.scenario} is still running on this account (${running.run_id})` };

    const runId = `run_${randomBytes(8).toString('hex')}`;
    const view: ScenarioRunView = {
      run_id: runId,
      scenario: name,
      status: 'running',
      started_at: this.now().toISOString(),
      steps: [],
      link: `${consoleUrl}#${runId}`,
    };
    this.keep(account.account_id, view);
    void runScenario(found.file, found.scenario, {
      baseUrl,
      profile: 'strict',
      seed: randomBytes(4).readUInt32BE() % 1_000_000,
      given: { account },
      onStep: (step) => view.steps.push(step),
      onCapture: (capture, value) => {
        const order = capture === 'final' ? raceOrderOf(value) : undefined;
        if (order)
          view.order = { order_id: order.orderId, status: order.status, taken_first: takenFirst(order.history) };
      },
    })
      .then((outcome) => (view.status = outcome.ok ? 'passed' : 'failed'))
      .catch((error: Error) => {
        view.steps.push({ name: 'the run stopped', request: '', status: 0, problems: [error.message], at: 0, ms: 0 });
        view.status = 'failed';
      })
      .finally(() => (view.ended_at = this.now().toISOString()));
    return { started: view };
  }

  get(accountId: string, runId: string): ScenarioRunView | undefined {
    const run = this.runs.get(runId);
    return run && run.accountId === accountId ? run.view : undefined;
  }

  private keep(accountId: string, view: ScenarioRunView): void {
    const mine = [...(this.recent.get(accountId) ?? []), view.run_id];
    for (const gone of mine.splice(0, Math.max(0, mine.length - RUNS_KEPT))) this.runs.delete(gone);
    this.recent.set(accountId, mine);
    this.runs.set(view.run_id, { accountId, view });
  }
}
