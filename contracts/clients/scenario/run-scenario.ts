import { startRelayClient, type RelayClient } from '../relay-client.js';
import { check, type ScenarioAnswer } from './expectations.js';
import { generatedValues } from './generated-values.js';
import { interpolate, UnknownValueError } from './interpolate.js';
import { startLocalReceiver, type LocalReceiver } from './local-receiver.js';
import {
  isInbox,
  isRelay,
  isReceiver,
  isTogether,
  type Eventually,
  type Expectation,
  type InboxStep,
  type RelayStep,
  type RequestStep,
  type Scenario,
  type Step,
} from './scenario-format.js';
import { answerExcerpt } from '../http-exchange.js';
import { deliver, prepare, type Prepared } from './wire.js';

export { ServerSilentError } from './wire.js';

// Plays one scenario against a deployment of the interface: its steps in
// order, a group's requests at once (each after its own delay), each answer
// checked against the step's expectations and captured for later steps.
// The first step that fails ends the scenario: later ones would be built on
// values it did not give.

export type ScenarioProfile = 'strict' | 'interface';

export interface StepOutcome {
  name: string;
  /** METHOD path, as sent (or what the step did: a receiver, an inbox read, a relay). */
  request: string;
  status: number;
  problems: string[];
  /** The answer's body, shortened, when the step failed. */
  answer?: string;
  /** Sent this many ms after the scenario started; answered after `ms`. */
  at: number;
  ms: number;
  /** Not played: the runner was given what it would have captured (a console run on the operator's account). */
  given?: true;
}

export interface ScenarioOutcome {
  file: string;
  description: string;
  /** Why it was not played (a requirement the profile leaves out). */
  skipped?: string;
  steps: StepOutcome[];
  ok: boolean;
  ms: number;
}

export interface RunOptions {
  baseUrl: string;
  profile: ScenarioProfile;
  /** Draws ${gen.…} and the jitter of delays; told to the scenario as ${seed}. ${run} tells this run apart from every other. */
  seed: number;
  timeoutMs?: number;
  /** Values known before the run (the operator's account): a step that would capture one of them is not sent. */
  given?: Record<string, unknown>;
  /** Each step's outcome as soon as it is known. */
  onStep?: (outcome: StepOutcome) => void;
  /** Each value captured, as it is (the race's report reads the orders). */
  onCapture?: (name: string, value: unknown) => void;
}

interface Play {
  options: RunOptions;
  values: Record<string, unknown>;
  sent: Map<string, Prepared>;
  receivers: Map<string, LocalReceiver>;
  relays: RelayClient[];
  jitter: (upToMs: number) => number;
  started: number;
}

export async function runScenario(file: string, scenario: Scenario, options: RunOptions): Promise<ScenarioOutcome> {
  const started = performance.now();
  const outcome = (steps: StepOutcome[], skipped?: string): ScenarioOutcome => ({
    file,
    description: scenario.description,
    ...(skipped ? { skipped } : {}),
    steps,
    ok: steps.every((step) => step.problems.length === 0),
    ms: performance.now() - started,
  });
  if (options.profile === 'interface' && scenario.requires?.length)
    return outcome([], `needs ${scenario.requires.join(', ')}, which the interface profile leaves out`);

  const generated = generatedValues(options.seed);
  const play: Play = {
    options,
    values: {
      run: `${options.seed}x${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`,
      seed: options.seed,
      now: new Date().toISOString(),
      later: Object.fromEntries(
        Object.entries({ '1m': 60_000, '1h': 3_600_000, '1d': 86_400_000 }).map(([name, ms]) => [
          name,
          new Date(Date.now() + ms).toISOString(),
        ]),
      ),
      gen: generated.values,
      ...options.given,
    },
    sent: new Map(),
    receivers: new Map(),
    relays: [],
    jitter: generated.jitter,
    started,
  };
  const steps: StepOutcome[] = [];
  try {
    for (const step of scenario.steps) {
      let played: StepOutcome[];
      try {
        played = await playAny(step, play);
      } catch (error) {
        if (!(error instanceof UnknownValueError)) throw error;
        played = [failedBeforeSending(step.name, error.message, play)];
      }
      for (const each of played) {
        steps.push(each);
        options.onStep?.(each);
      }
      if (played.some((each) => each.problems.length > 0)) break;
    }
  } finally {
    for (const relay of play.relays) relay.stop();
    await Promise.all([...play.receivers.values()].map((receiver) => receiver.close()));
  }
  return outcome(steps);
}

function failedBeforeSending(name: string, problem: string, play: Play): StepOutcome {
  return { name, request: '(not sent)', status: 0, problems: [problem], at: since(play), ms: 0 };
}

const since = (play: Play) => Math.round(performance.now() - play.started);

function playAny(step: Step, play: Play): Promise<StepOutcome[]> {
  if (isTogether(step)) return Promise.all(step.together.map((each) => playRequest(each, play)));
  if (isReceiver(step)) return startReceiver(step.name, step.receiver, play).then((outcome) => [outcome]);
  if (isInbox(step)) return readInbox(step, play).then((outcome) => [outcome]);
  if (isRelay(step)) return openRelay(step, play).then((outcome) => [outcome]);
  return playRequest(step, play).then((outcome) => [outcome]);
}

/** Asks `attempt` again until it finds nothing wrong, or the step's time is up. */
async function untilHeld(
  eventually: Eventually | undefined,
  attempt: () => Promise<{ answer: ScenarioAnswer; problems: string[]; request: string }>,
) {
  const deadline = performance.now() + (eventually?.withinMs ?? 0);
  for (;;) {
    const result = await attempt();
    if (result.problems.length === 0 || !eventually || performance.now() >= deadline) {
      if (result.problems.length > 0 && eventually)
        result.problems = result.problems.map((problem) => `within ${eventually.withinMs} ms: ${problem}`);
      return result;
    }
    await new Promise((resolve) => setTimeout(resolve, eventually.everyMs ?? 100));
  }
}

async function playRequest(step: RequestStep, play: Play): Promise<StepOutcome> {
  if (step.capture && play.options.given && step.capture in play.options.given)
    return { name: step.name, request: '(given)', status: 0, problems: [], at: since(play), ms: 0, given: true };
  const expected: Expectation | undefined = step.expect ? interpolate(step.expect, play.values) : undefined;
  const earlier = step.resend === undefined ? undefined : play.sent.get(step.resend);
  if (step.resend !== undefined && !earlier)
    return failedBeforeSending(step.name, `no earlier step named "${step.resend}" sent a request`, play);
  const request = step.request ? interpolate(step.request, play.values) : undefined;
  const wait = (step.delayMs ?? 0) + play.jitter(step.jitterMs ?? 0);
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const at = since(play);
  const {
    answer,
    problems,
    request: sent,
  } = await untilHeld(step.eventually, async () => {
    // A resend goes byte for byte; anything else is prepared (and signed) again for each try.
    const prepared = earlier ?? prepare(request!);
    play.sent.set(step.name, prepared);
    const answer = await deliver(prepared, play.options.baseUrl, play.options.timeoutMs);
    return { answer, problems: check(answer, expected), request: `${prepared.method} ${prepared.path}` };
  });
  if (step.capture) {
    play.values[step.capture] = answer.body;
    play.options.onCapture?.(step.capture, answer.body);
  }
  return outcomeOf(step.name, sent, answer, problems, at, play);
}

function outcomeOf(name: string, request: string, answer: ScenarioAnswer, problems: string[], at: number, play: Play) {
  const excerpt = problems.length > 0 ? answerExcerpt(answer.body) : undefined;
  return {
    name,
    request,
    status: answer.status,
    problems,
    ...(excerpt ? { answer: excerpt } : {}),
    at,
    ms: since(play) - at,
  };
}

async function startReceiver(name: string, wanted: { capture: string; status?: number }, play: Play) {
  const at = since(play);
  const receiver = await startLocalReceiver(wanted.status ?? 200);
  play.receivers.set(wanted.capture, receiver);
  play.values[wanted.capture] = { url: receiver.url };
  return { name, request: `receiver at ${receiver.url}`, status: 0, problems: [], at, ms: since(play) - at };
}

async function readInbox(step: InboxStep, play: Play): Promise<StepOutcome> {
  const receiver = play.receivers.get(step.inbox);
  if (!receiver) return failedBeforeSending(step.name, `no receiver step captured "${step.inbox}"`, play);
  const expected = step.expect ? interpolate(step.expect, play.values) : undefined;
  const at = since(play);
  const { answer, problems } = await untilHeld(step.eventually, async () => {
    const answer: ScenarioAnswer = { status: 200, headers: {}, body: { deliveries: [...receiver.deliveries] } };
    return { answer, problems: check(answer, expected), request: '' };
  });
  return outcomeOf(step.name, `what ${step.inbox} received`, answer, problems, at, play);
}

async function openRelay(step: RelayStep, play: Play): Promise<StepOutcome> {
  const { token, forwardTo } = interpolate(step.relay, play.values);
  const at = since(play);
  const client = startRelayClient({ baseUrl: play.options.baseUrl, token, forwardTo, log: () => {} });
  play.relays.push(client);
  const timeoutMs = play.options.timeoutMs ?? 10_000;
  const status = await Promise.race([
    client.connected.then(() => 101),
    client.finished.then(({ reason }) => (reason.startsWith('refused') ? 401 : 0)),
    new Promise<number>((resolve) => setTimeout(() => resolve(0), timeoutMs).unref()),
  ]);
  const wanted = step.expect?.status ?? 101;
  const problems =
    status === 0
      ? [`the relay did not connect within ${timeoutMs} ms`]
      : status === wanted
        ? []
        : [
            `expected the relay to be ${wanted === 101 ? 'connected (101)' : 'refused (401)'}, it was ${status === 101 ? 'connected' : 'refused'}`,
          ];
  return { name: step.name, request: 'GET /relay (WebSocket)', status, problems, at, ms: since(play) - at };
}
