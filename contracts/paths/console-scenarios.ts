import { closed } from '../helpers.js';
import { jsonResponse, ref, responseRef, type PathItems } from '../components.js';

// The console's Scenarios panel (ours, not the interface's): the bundled
// scenario files (fixtures/scenarios/, docs/scenarios.md) listed, one
// played on the operator's own account by the server, and the run read
// step by step as it goes.

const consoleAuth = [{ consoleBearer: [] }];
const runId = { type: 'string', pattern: '^run_[0-9a-f]{16}$' } as const; // as ScenarioRun's run_id

const scenarioSummary = closed(
  ['name', 'description', 'surfaces', 'requires', 'steps', 'runnable'],
  {
    name: { type: 'string', description: 'The file name less `.json`.' },
    description: { type: 'string' },
    surfaces: { type: 'array', items: { type: 'string' } },
    requires: { type: 'array', items: { type: 'string' } },
    steps: { type: 'integer', minimum: 1 },
    runnable: { type: 'boolean' },
    not_runnable_because: {
      type: 'string',
      description:
        'Why the console does not run it (a scenario that opens a relay for the account would replace the operator’s own); run it with svc-scenario.',
    },
  },
  'A bundled scenario.',
);

export const consoleScenarioPaths: PathItems = {
  '/console/scenarios': {
    get: {
      operationId: 'listConsoleScenarios',
      'x-ours': true,
      summary: 'The bundled scenarios the console can run',
      tags: ['console'],
      security: consoleAuth,
      responses: {
        '200': jsonResponse(
          'Every bundled scenario, by name.',
          closed(['data'], { data: { type: 'array', items: scenarioSummary } }),
        ),
        '401': responseRef('Unauthorized'),
      },
    },
  },
  '/console/scenarios/{name}/runs': {
    post: {
      operationId: 'startConsoleScenarioRun',
      'x-ours': true,
      summary: "Play a bundled scenario on the operator's own account",
      description:
        "The server plays the scenario against itself with the caller's account given (the steps that would register one are not sent): it creates what the scenario creates on that account, and moves that account's clock when the scenario does. Answers at once; read the run to follow it. A run lives on the instance that plays it, the last 20 of an account; one at a time per account (409 while one runs).",
      tags: ['console'],
      security: consoleAuth,
      parameters: [
        { name: 'name', in: 'path', required: true, schema: { type: 'string', pattern: '^[a-z0-9-]{1,64}$' } },
      ],
      responses: {
        '202': jsonResponse('Started.', ref('ScenarioRun')),
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
        '409': responseRef('Conflict'),
      },
    },
  },
  '/console/scenario-runs/{run_id}': {
    get: {
      operationId: 'getConsoleScenarioRun',
      'x-ours': true,
      summary: 'A scenario run, its steps so far',
      tags: ['console'],
      security: consoleAuth,
      parameters: [{ name: 'run_id', in: 'path', required: true, schema: runId }],
      responses: {
        '200': jsonResponse('The run.', ref('ScenarioRun')),
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '404': responseRef('NotFound'),
      },
    },
  },
};
