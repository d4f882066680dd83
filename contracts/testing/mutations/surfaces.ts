import { jsonAnswer, type Mutation } from '../mutating-proxy.js';
import { is, rewriteTrace } from './kit.js';

// The account's surfaces and the served document (INTERFACE.md §0, §2, §6, §8) broken one rule at a time.

export const surfaceMutations: Mutation[] = [
  // The account's surfaces (INTERFACE.md §0, §2, §6, §8).
  {
    name: 'a reset answers 200 and deletes nothing',
    caughtBy: 'control.reset',
    request: (request) => {
      if (is(request, 'POST', /^\/(control|__test__)\/reset$/))
        return { status: 200, headers: { 'content-type': 'application/json' }, text: '{"status":"reset","deleted":0}' };
    },
  },
  {
    name: 'a 429 of the rate brake carries no Retry-After',
    caughtBy: 'control.rate-brake',
    answer: (_request, answer) => {
      if (answer.status === 429) delete answer.headers['retry-after'];
    },
  },
  {
    name: "the terminal list shows each terminal's secret",
    caughtBy: 'terminals.secrets',
    answer: (request, answer, memory) => {
      const body = jsonAnswer.read(answer);
      if (is(request, 'POST', /\/pos-terminals$/) && answer.status === 201)
        memory.set(`secret:${body.serialNumber}`, body.secret);
      if (is(request, 'GET', /\/pos-terminals$/) && Array.isArray(body?.data))
        jsonAnswer.write(answer, {
          ...body,
          data: body.data.map((t: { serialNumber: string }) => ({
            ...t,
            secret: memory.get(`secret:${t.serialNumber}`),
          })),
        });
    },
  },
  {
    name: 'malformed JSON answers VALIDATION_FAILED instead of MALFORMED_JSON',
    caughtBy: 'errors.bodies',
    answer: (_request, answer) => {
      const body = jsonAnswer.read(answer);
      if (answer.status === 400 && body?.code === 'MALFORMED_JSON')
        jsonAnswer.write(answer, { ...body, code: 'VALIDATION_FAILED' });
    },
  },
  {
    name: 'the console lists sessions oldest first',
    caughtBy: 'console.lists',
    answer: (request, answer) => {
      const body = jsonAnswer.read(answer);
      if (is(request, 'GET', /^\/console\/sessions$/) && Array.isArray(body?.data))
        jsonAnswer.write(answer, { ...body, data: [...body.data].reverse() });
    },
  },
  {
    name: 'a failed accreditation emits one failed-credit event for all receivers',
    caughtBy: 'webhooks.events',
    answer: (request, answer) => {
      if (!is(request, 'GET', /^\/console\/trace$/)) return;
      rewriteTrace(answer, (entries) => {
        const seen = new Set<string>();
        for (let i = entries.length - 1; i >= 0; i -= 1) {
          const entry = entries[i]!;
          if (
            entry.type !== 'webhook.received' ||
            !String(entry.raw_body).includes('accreditation_to_recipient_failed')
          )
            continue;
          const session = String(entry.session_id);
          if (seen.has(session)) entries.splice(i, 1);
          seen.add(session);
        }
      });
    },
  },
  {
    name: 'webhooks for a private address (192.168.x) are sent direct, not through the relay',
    caughtBy: 'webhooks.relay-rules',
    answer: (request, answer) => {
      if (!is(request, 'GET', /^\/console\/trace$/)) return;
      rewriteTrace(answer, (entries) => {
        for (const entry of entries)
          if (entry.type === 'webhook.attempt' && entry.routing === 'relay' && entry.session_id)
            entry.routing = 'direct';
      });
    },
  },
  // The served document (INTERFACE.md §0).
  {
    name: 'the served /openapi.json drops operations',
    caughtBy: 'document.served',
    answer: (request, answer) => {
      const body = jsonAnswer.read(answer);
      if (!is(request, 'GET', /^\/openapi\.json$/) || !body?.paths) return;
      delete body.paths['/api/v1/ext/stops/reorder'];
      delete body.paths['/api/v1/pos-terminals/{serialNumber}/settlements'];
      jsonAnswer.write(answer, body);
    },
  },
];
