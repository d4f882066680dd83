import type { CheckContext } from './check.js';
import { registerAccount, waitFor } from './fixtures.js';

// Ours: the console's Scenarios panel (docs/scenarios.md, "From the
// console"): the bundled scenarios listed, one played on the caller's
// account, its run read until it ends, unknown names and runs 404.

export async function consoleScenarios(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const token = account.consoleToken;
  const listed = await http('GET', '/console/scenarios', { token });
  if (!expect.status(listed, 200)) return;
  const names = ((listed.body?.data ?? []) as Array<{ name: string }>).map((each) => each.name);
  expect.that(names.includes('commit-twice'), listed, '/data', 'the bundled commit-twice among them', names.join(', '));
  expect.status(await http('POST', '/console/scenarios/no-such-scenario/runs', { token }), 404);
  const started = await http('POST', '/console/scenarios/commit-twice/runs', { token });
  if (!expect.status(started, 202)) return;
  const runId = started.body?.run_id as string;
  const ended = await waitFor(async () => {
    const run = await http('GET', `/console/scenario-runs/${runId}`, { token });
    return run.status !== 200 || run.body?.status !== 'running' ? run : undefined;
  }, ctx.settleMs);
  if (!ended) return void expect.fail(started, '/status', 'the run to end', 'still running');
  if (expect.status(ended, 200))
    expect.that(ended.body?.status === 'passed', ended, '/status', 'passed', String(ended.body?.status));
  expect.status(await http('GET', `/console/scenario-runs/run_${'0'.repeat(16)}`, { token }), 404);
}
