import { createHmac, randomUUID } from 'node:crypto';
import { jsonAnswer, type Mutation } from '../mutating-proxy.js';
import { is, rewriteTrace } from './kit.js';

// Rules of the webhooks broken one at a time.

export const webhookMutations: Mutation[] = [
  // Webhooks (INTERFACE.md §7), as the account's receivers record them.
  {
    name: 'webhooks are signed over re-serialised JSON, not the bytes sent',
    caughtBy: 'webhooks.captura',
    answer: (request, answer, memory) => {
      if (is(request, 'POST', /^\/console\/register$/)) {
        const body = jsonAnswer.read(answer);
        if (body?.console_token) memory.set(`secret:${body.console_token}`, body.key.webhook_secret);
      }
      const secret = memory.get(`secret:${(request.headers.authorization ?? '').replace(/^Bearer /, '')}`) as
        string | undefined;
      if (!is(request, 'GET', /^\/console\/trace$/) || !secret) return;
      rewriteTrace(answer, (entries) => {
        for (const entry of entries) {
          if (entry.type !== 'webhook.received' || !entry.headers?.['svc-timestamp']) continue;
          const reserialised = JSON.stringify(entry.body, null, 1);
          entry.headers['svc-signature'] = createHmac('sha256', secret)
            .update(`${entry.headers['svc-timestamp']}.${reserialised}`)
            .digest('hex');
          entry.signature = entry.headers['svc-signature'];
        }
      });
    },
  },
  {
    name: 'automatic retries carry a new idempotency-key',
    caughtBy: 'webhooks.retries',
    answer: (request, answer, memory) => {
      if (!is(request, 'GET', /^\/console\/trace$/)) return;
      rewriteTrace(answer, (entries) => {
        for (const entry of entries) {
          if (entry.type !== 'webhook.received' || !entry.event_id || !entry.headers) continue;
          const seen = `received:${entry.event_id}`;
          const first = memory.get(seen) as string | undefined;
          if (first === undefined) memory.set(seen, entry.id);
          else if (first !== entry.id) entry.headers['idempotency-key'] = entry.idempotency_key = randomUUID();
        }
      });
    },
  },
  {
    // Emulated on the account clock the suite reads: once attempt 2 has been made, the clock is shown 3000 ms
    // behind, so attempt 3 (due 5000 ms after attempt 2) comes while the clock reads only 2000 ms past attempt 2,
    // as it would from an implementation counting the step from attempt 1. The trace's own times are not used.
    name: 'retry delays are counted from the first attempt (attempt 3 comes 5000 ms after attempt 1 on the account clock)',
    caughtBy: 'webhooks.retries',
    answer: (request, answer, memory) => {
      if (is(request, 'GET', /^\/console\/trace$/)) {
        const entries = jsonAnswer.read(answer)?.data as Array<Record<string, unknown>> | undefined;
        if (entries?.some((entry) => entry.type === 'webhook.attempt' && entry.attempt === 2))
          memory.set('second attempt made', true);
        return;
      }
      if (!is(request, 'GET', /^\/(control|__test__)\/clock$/) || !memory.get('second attempt made')) return;
      const body = jsonAnswer.read(answer);
      if (typeof body?.now === 'string')
        jsonAnswer.write(answer, { ...body, now: new Date(Date.parse(body.now) - 3000).toISOString() });
    },
  },
  {
    name: 'a clock advance moves the account clock 2 s further than asked',
    caughtBy: 'control.clock',
    request: (request) => {
      if (!is(request, 'POST', /^\/(control|__test__)\/clock\/advance$/)) return;
      const body = JSON.parse(request.body || '{}');
      if (typeof body.ms === 'number' && body.ms > 0) request.body = JSON.stringify({ ...body, ms: body.ms + 2000 });
    },
  },
  {
    name: "an order's history leaves out the void",
    caughtBy: 'orders.transitions',
    answer: (request, answer) => {
      const body = jsonAnswer.read(answer);
      if (is(request, 'GET', /^\/api\/v1\/merchants\/[^/]+\/transactions\/[^/]+$/) && body?.data?.status === 'VOIDED')
        jsonAnswer.write(answer, { ...body, data: { ...body.data, history: body.data.history.slice(0, -1) } });
    },
  },
  {
    name: 'a session amount with three decimals is rounded and accepted',
    caughtBy: 'sessions.create',
    request: (request) => {
      if (!is(request, 'POST', /^\/api\/v1\/ext\/payment-sessions\/buttons$/)) return;
      const body = JSON.parse(request.body || '{}');
      if (typeof body.amount_reference === 'number')
        request.body = JSON.stringify({ ...body, amount_reference: Math.round(body.amount_reference * 100) / 100 });
    },
  },
];
