import { bodyErrors, writeErrors, jsonBody, jsonResponse, ref, responseRef, type PathItems } from '../components.js';

const apiAuth = [{ apiBearer: [] }];

/** The control plane (INTERFACE.md §6); every path also answers under /__test__ (see withTestAliases). */
export const controlPaths: PathItems = {
  '/control/clock': {
    get: {
      operationId: 'getControlClock',
      summary: "The calling account's clock",
      tags: ['control'],
      security: apiAuth,
      responses: {
        '200': jsonResponse("The account's now and how far it runs ahead of the server clock.", ref('AccountClock')),
        '401': responseRef('Unauthorized'),
      },
    },
  },
  '/control/clock/next': {
    get: {
      operationId: 'getNextDue',
      'x-ours': true, // not an operation of the interface (profiles.ts)
      summary: "What the calling account's clock reaches next: a webhook attempt or a scheduled accreditation",
      description:
        "The earliest pending webhook attempt (the head of each session's queue) or scheduled accreditation of the account, found through an index; null when nothing waits. Advancing the clock by in_ms makes it happen.",
      tags: ['control'],
      security: apiAuth,
      responses: {
        '200': jsonResponse('The next due, or null.', ref('NextDue')),
        '401': responseRef('Unauthorized'),
      },
    },
  },
  '/control/clock/advance': {
    post: {
      operationId: 'advanceControlClock',
      summary: "Move the calling account's clock forward",
      description:
        'Due dates, scheduled accreditations, webhook retries and token expiry of the account happen as if the time had passed.',
      tags: ['control'],
      security: apiAuth,
      requestBody: jsonBody('ClockAdvanceRequest'),
      responses: {
        '200': jsonResponse("The account's clock after the move.", ref('AccountClock')),
        ...bodyErrors,
        ...writeErrors,
        '401': responseRef('Unauthorized'),
      },
    },
  },
  // A request through the account's relay, for grading a receiver on the integrator's machine (svc-contracts receiver --via-relay).
  '/control/relay/deliveries': {
    post: {
      operationId: 'sendThroughRelay',
      'x-ours': true, // not an operation of the interface (profiles.ts)
      summary: "POST a request through the account's relay to its local receiver",
      description:
        'The relay connected with the calling key (svc-relay) POSTs the body and headers, byte for byte, to its --forward-to receiver and reports the status, within the same 5 s limit as a webhook attempt. Nothing is signed or stored: the caller builds the request.',
      tags: ['control'],
      security: apiAuth,
      requestBody: jsonBody('RelayDeliveryRequest'),
      responses: {
        '200': jsonResponse('What the local receiver answered, or why it did not.', ref('RelayDeliveryResult')),
        ...bodyErrors,
        '401': responseRef('Unauthorized'),
      },
    },
  },
};

/**
 * Every /control/** path again under /__test__/** (INTERFACE.md §6), with its own operationId and `x-alias-of` naming the
 * operation whose handler answers it.
 */
export function withTestAliases(paths: PathItems): PathItems {
  const aliases: PathItems = {};
  for (const [path, item] of Object.entries(paths)) {
    if (!path.startsWith('/control/')) continue;
    aliases[path.replace(/^\/control\//, '/__test__/')] = Object.fromEntries(
      Object.entries(item).map(([method, operation]) => [
        method,
        {
          ...operation,
          operationId: `${operation!.operationId}ViaTestAlias`,
          summary: `${operation!.summary} (alias under /__test__)`,
          'x-alias-of': operation!.operationId,
        },
      ]),
    );
  }
  return { ...paths, ...aliases };
}
