import type { CheckContext } from './check.js';
import { advanceClock, createAgreement, createSession, registerAccount } from './fixtures.js';

// The console's lists (INTERFACE.md §8, console): sessions and trace newest first, the trace's filters and bounds, the keys.

export async function consoleLists(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const agreement = await createAgreement(http, account);
  const ids: string[] = [];
  for (let i = 0; i < 3; i += 1) {
    ids.push((await createSession(http, account, { agreement_id: agreement, amount_reference: i + 1 })).session_id);
    // Sessions created in the same millisecond have no newest: a millisecond apart on the account's clock, they do.
    await advanceClock(http, account, 1);
  }
  const sessions = await http('GET', '/console/sessions', { token: account.consoleToken });
  if (expect.status(sessions, 200)) {
    const listed = ((sessions.body?.data ?? []) as Array<{ session_id: string }>).map((s) => s.session_id);
    expect.that(
      JSON.stringify(listed) === JSON.stringify([...ids].reverse()),
      sessions,
      '/data',
      `newest first: ${[...ids].reverse().join(', ')}`,
      listed.join(', '),
    );
  }
  if (ctx.profile === 'strict') {
    // Ours: the accreditation filter and the search by the start of an id.
    const listed = async (query: string) => {
      const answer = await http('GET', `/console/sessions?${query}`, { token: account.consoleToken });
      return {
        answer,
        ids: expect.status(answer, 200)
          ? ((answer.body?.data ?? []) as Array<{ session_id: string }>).map((s) => s.session_id)
          : [],
      };
    };
    const none = await listed('accreditation=none');
    expect.that(
      none.ids.length === 3,
      none.answer,
      '/data',
      'the three sessions, none accredited yet',
      none.ids.join(', '),
    );
    const accredited = await listed('accreditation=accredited&status=paid');
    expect.that(accredited.ids.length === 0, accredited.answer, '/data', 'no session', accredited.ids.join(', '));
    const found = await listed(`id_prefix=${encodeURIComponent(ids[1]!)}`);
    expect.that(
      JSON.stringify(found.ids) === JSON.stringify([ids[1]]),
      found.answer,
      '/data',
      ids[1]!,
      found.ids.join(', '),
    );
    const all = await listed(`id_prefix=${encodeURIComponent(commonPrefix(ids))}&limit=2`);
    expect.that(
      JSON.stringify(all.ids) === JSON.stringify([...ids].sort().slice(0, 2)),
      all.answer,
      '/data',
      'the first two ids in their order',
      all.ids.join(', '),
    );
    expect.status(
      await http('GET', '/console/sessions?id_prefix=ses&status=paid', { token: account.consoleToken }),
      400,
      'VALIDATION_FAILED',
    );
  }
  const trace = await http('GET', '/console/trace?limit=1000', { token: account.consoleToken });
  if (expect.status(trace, 200)) {
    const at = ((trace.body?.data ?? []) as Array<{ at: string }>).map((e) => Date.parse(e.at));
    expect.that(
      at.every((t, i) => i === 0 || at[i - 1]! >= t),
      trace,
      '/data',
      'newest first',
      at.map((t) => new Date(t).toISOString()).join(', '),
    );
  }
  const typed = await http('GET', '/console/trace?type=session.created', { token: account.consoleToken });
  if (expect.status(typed, 200))
    expect.that(
      ((typed.body?.data ?? []) as Array<{ type: string }>).every((e) => e.type === 'session.created') &&
        typed.body.data.length === 3,
      typed,
      '/data',
      'the three session.created entries only',
      (typed.body?.data ?? []).map((e: { type: string }) => e.type).join(', '),
    );
  const one = await http('GET', `/console/trace?session_id=${ids[1]}`, { token: account.consoleToken });
  if (expect.status(one, 200))
    expect.that(
      ((one.body?.data ?? []) as Array<{ session_id?: string }>).every((e) => e.session_id === ids[1]) &&
        one.body.data.length > 0,
      one,
      '/data',
      `entries of ${ids[1]} only`,
      (one.body?.data ?? []).map((e: { session_id?: string }) => e.session_id).join(', '),
    );
  expect.equal(
    await http('GET', '/console/trace?limit=2', { token: account.consoleToken }),
    '/data/length',
    2,
    'limit=2',
  );
  for (const limit of ['0', '1001'])
    expect.status(
      await http('GET', `/console/trace?limit=${limit}`, { token: account.consoleToken }),
      400,
      'VALIDATION_FAILED',
    );
  const keys = await http('GET', '/console/keys', { token: account.consoleToken });
  if (expect.status(keys, 200))
    expect.that(
      (keys.body?.keys ?? []).some(
        (k: { token: string; webhook_secret: string }) =>
          k.token === account.token && k.webhook_secret === account.webhookSecret,
      ) && keys.body?.hooks?.captura === account.hooks.captura,
      keys,
      '/keys',
      "the account's API token and webhook secret, and its receivers",
      keys.text.slice(0, 80),
    );
}

/** The longest start the ids share. */
function commonPrefix(ids: readonly string[]): string {
  let prefix = ids[0] ?? '';
  for (const id of ids) while (!id.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}
