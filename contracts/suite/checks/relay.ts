import type { CheckContext } from './check.js';
import {
  advanceClock,
  createAgreement,
  createSession,
  openRelay,
  registerAccount,
  traceOf,
  waitFor,
} from './fixtures.js';
import { header, checkDelivery } from './deliveries.js';

// The relay (INTERFACE.md §8): a delivery to a local receiver goes through the client's WebSocket, byte for byte; one relay a key.

export async function relay(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const agreement = await createAgreement(http, account);
  const socket = await openRelay(ctx.baseUrl, account.token);
  if (!socket) return void expect.fail(null, '', 'GET /relay to open with the API token', 'refused');
  const messages: Array<{
    delivery_id: string;
    event_id: string;
    url: string;
    headers: Record<string, string>;
    body: string;
  }> = [];
  let answer = 500;
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as (typeof messages)[number] & { type: string };
    if (message.type !== 'webhook') return;
    messages.push(message);
    socket.send(JSON.stringify({ type: 'result', delivery_id: message.delivery_id, status: answer }));
  });
  try {
    const target = 'http://localhost:4000/contract-check';
    const session = (
      await createSession(http, account, { agreement_id: agreement, amount_reference: 4, webhook_url: target })
    ).session_id as string;
    const first = await waitFor(async () => messages[0], ctx.settleMs);
    if (!first) return void expect.fail(null, '', 'the created event through the relay', 'nothing arrived');
    expect.that(first.url === target, null, '/url', target, first.url);
    checkDelivery(expect, first, account.webhookSecret, 'through the relay');
    expect.that(
      (JSON.parse(first.body) as { data?: { session_id?: string } }).data?.session_id === session,
      null,
      '/body',
      `the event of ${session}`,
      first.body.slice(0, 80),
    );
    // Answered 500 locally: the retry comes through the relay 2000 ms later on the account clock, the same in every byte.
    answer = 200;
    await advanceClock(http, account, 2100);
    const retry = await waitFor(async () => messages[1], ctx.settleMs);
    const same = expect.citing(
      'INTERFACE.md §7 (automatic retries carry the same timestamp, signature and idempotency-key)',
    );
    if (!retry) return void same.fail(null, '', 'the retry through the relay after the local 500', 'nothing arrived');
    same.that(
      retry.event_id === first.event_id && retry.body === first.body,
      null,
      '/body',
      'the same event, byte for byte',
      retry.body.slice(0, 80),
    );
    for (const name of ['idempotency-key', 'svc-timestamp', 'svc-signature'])
      same.that(
        header(retry, name) === header(first, name),
        null,
        `header:${name}`,
        `the first attempt's ${name}`,
        header(retry, name) ?? 'none',
      );
  } finally {
    socket.close();
  }
}
/** A second relay for the same key closes the first with close code 4000 (INTERFACE.md §8); routing in the trace (INTERFACE.md §7). */
export async function relayRules(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const agreement = await createAgreement(http, account);
  const open = () => openRelay(ctx.baseUrl, account.token);
  const first = await open();
  if (!first) return void expect.fail(null, '', 'GET /relay to open with the API token', 'refused');
  const closed = new Promise<number>((resolve) => first.once('close', (code) => resolve(code)));
  const second = await open();
  if (!second) return void expect.fail(null, '', 'a second relay for the same key to open', 'refused');
  try {
    const code = await Promise.race([
      closed,
      new Promise<number>((resolve) => setTimeout(() => resolve(0), ctx.settleMs)),
    ]);
    expect.that(
      code === 4000,
      null,
      '',
      'the first relay closed with code 4000 when a second opened for the key',
      code === 0 ? 'still open' : `${code}`,
    );
    second.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; delivery_id: string };
      if (message.type === 'webhook')
        second.send(JSON.stringify({ type: 'result', delivery_id: message.delivery_id, status: 200 }));
    });
    const routed: Array<[string, string]> = [
      [account.hooks.paid, 'loopback'],
      ['http://127.0.0.1:4000/hook', 'relay'],
      ['http://192.168.1.20/hook', 'relay'],
      ['not a url', 'relay'],
    ];
    for (const [webhook_url, routing] of routed) {
      // One session at a time: its created event's attempt is the next attempt entry of the account.
      const before = (await traceOf(http, account, 'webhook.attempt')).length;
      await createSession(http, account, { agreement_id: agreement, amount_reference: 1, webhook_url });
      const attempt = await waitFor(
        async () => (await traceOf(http, account, 'webhook.attempt'))[before],
        ctx.settleMs,
      );
      expect.that(
        attempt?.routing === routing,
        null,
        '/routing',
        `${routing} for ${webhook_url}`,
        attempt?.routing ?? 'no attempt',
      );
    }
  } finally {
    first.close();
    second.close();
  }
}
