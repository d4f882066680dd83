import { api, report } from './api.js';
import { $, el, field } from './dom.js';
import { state } from './state.js';

// The Scenarios panel (POST /console/scenarios/{name}/runs): a bundled
// scenario played by the server on this account, each step shown passed
// or failed as it comes, beside the live trace that shows what it did. A
// run has its own link (#run_…), to share or reload.

interface ScenarioSummary {
  name: string;
  description: string;
  surfaces: string[];
  requires: string[];
  steps: number;
  runnable: boolean;
  not_runnable_because?: string;
}

interface RunStep {
  name: string;
  request: string;
  status: number;
  problems: string[];
  answer?: string;
  given?: boolean;
}

interface Run {
  run_id: string;
  scenario: string;
  status: 'running' | 'passed' | 'failed';
  steps: RunStep[];
  link: string;
  order?: { order_id: string; status: string; taken_first: 'merchant' | 'pos' | 'neither' };
}

let library: ScenarioSummary[] = [];
let following: ReturnType<typeof setTimeout> | null = null;

function describe(): void {
  const chosen = library.find((each) => each.name === field('scenario-name').value);
  const about = $('scenario-about');
  about.replaceChildren();
  if (!chosen) return;
  about.append(el('p', chosen.description));
  const facts = [`${chosen.steps} steps`];
  if (chosen.surfaces.length) facts.push(`plays: ${chosen.surfaces.join(', ')}`);
  if (chosen.requires.includes('control-plane')) facts.push("moves this account's clock or forces outcomes");
  about.append(el('p', facts.join(' · '), { class: 'muted' }));
  if (!chosen.runnable) about.append(el('p', `Not run here: ${chosen.not_runnable_because ?? ''}`));
  ($('scenario-run') as HTMLButtonElement).disabled = !chosen.runnable;
}

export async function loadScenarios(): Promise<void> {
  library = (await api<{ data: ScenarioSummary[] }>('/console/scenarios')).data;
  const select = $('scenario-name');
  const kept = field('scenario-name').value;
  select.replaceChildren(...library.map((each) => el('option', each.name, { value: each.name })));
  // The one chosen before stays chosen; otherwise the first the console runs here (not one it would refuse).
  const first = library.find((each) => each.runnable) ?? library[0];
  if (kept || first) field('scenario-name').value = kept || first!.name;
  describe();
}

function stepRow(step: RunStep): HTMLLIElement {
  const item = el('li');
  const held = step.problems.length === 0;
  item.append(
    el('span', step.given ? 'given' : held ? 'passed' : 'failed', {
      class: `badge ${step.given ? 'wait' : held ? 'ok' : 'bad'}`,
    }),
    ' ',
    step.name,
  );
  if (!step.given)
    item.append(el('span', ` — ${step.request}${step.status ? ` → ${step.status}` : ''}`, { class: 'muted' }));
  for (const problem of step.problems) item.append(el('div', problem));
  if (step.answer) item.append(el('div', `the answer: ${step.answer}`, { class: 'muted' }));
  return item;
}

/** Draws the steps that came since the last look (the list is only added to), and the run's end. */
function draw(run: Run): void {
  const list = $('scenario-steps');
  if (list.dataset.run !== run.run_id) {
    list.replaceChildren();
    list.dataset.run = run.run_id;
  }
  for (const step of run.steps.slice(list.children.length)) list.append(stepRow(step));
  const result = $('scenario-result');
  const link = el('a', 'link to this run', { href: `#${run.run_id}` });
  result.replaceChildren(
    run.status === 'running'
      ? `${run.scenario}: running, ${run.steps.length} steps so far… `
      : `${run.scenario}: ${run.status === 'passed' ? 'every step held' : 'a step failed'} (${run.steps.length} steps). `,
    link,
  );
  if (run.order) {
    const first = { merchant: "the merchant's discard", pos: "the POS's confirmation", neither: 'neither side' }[
      run.order.taken_first
    ];
    $('scenario-race').textContent =
      `Order ${run.order.order_id}: the server took ${first} first; it ended ${run.order.status}.`;
  } else $('scenario-race').textContent = '';
}

/** Follows a run until it ends, reading it every 300 ms. */
export async function showRun(runId: string): Promise<void> {
  if (following) clearTimeout(following);
  const run = await api<Run>(`/console/scenario-runs/${runId}`);
  if (state.locked) return;
  draw(run);
  if (run.status === 'running') following = setTimeout(() => showRun(runId).catch(report), 300);
}

export function wireScenarios(): void {
  $('scenario-name').addEventListener('change', describe);
  $('scenario-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const name = field('scenario-name').value;
    api<Run>(`/console/scenarios/${encodeURIComponent(name)}/runs`, { method: 'POST' })
      .then((run) => {
        draw(run);
        history.replaceState(null, '', `#${run.run_id}`);
        return showRun(run.run_id);
      })
      .catch(report);
  });
}

/** Stops following (the console locked). */
export function stopScenarios(): void {
  if (following) clearTimeout(following);
  following = null;
}
