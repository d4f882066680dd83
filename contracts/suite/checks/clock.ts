// The control plane's clock (INTERFACE.md §6), as the contract suite checks it.
import type { CheckContext } from './check.js';
import { registerAccount } from './fixtures.js';

export async function clock(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const other = await registerAccount(http);
  const read = async (who = account) => {
    const answer = await http('GET', '/control/clock', { token: who.token });
    return expect.status(answer, 200)
      ? { now: Date.parse(answer.body?.now), offset: Number(answer.body?.offset_ms), answer }
      : undefined;
  };
  const before = await read();
  const started = Date.now();
  const advanced = await http('POST', '/control/clock/advance', { json: { ms: 60_000 }, token: account.token });
  expect.success(advanced); // open choice success-status
  const after = await read();
  if (!before || !after) return;
  const elapsed = Date.now() - started;
  // The account's clock moved by what was asked, plus whatever real time passed (nothing on a clock that does not run).
  expect.that(
    after.offset - before.offset === 60_000,
    after.answer,
    '/offset_ms',
    `${before.offset + 60_000} (60000 more)`,
    after.offset,
  );
  expect.that(
    after.now - before.now >= 60_000 && after.now - before.now <= 60_000 + elapsed + 1000,
    after.answer,
    '/now',
    `60 s later (plus at most the ${elapsed} ms that passed)`,
    `${after.now - before.now} ms later`,
  );
  expect.success(await http('POST', '/__test__/clock/advance', { json: { ms: 1 }, token: account.token }));
  for (const ms of [-5, 'soon'])
    expect.status(
      await http('POST', '/control/clock/advance', { json: { ms }, token: account.token }),
      400,
      'VALIDATION_FAILED',
    );
  // A zero step: refused (ours), or accepted leaving the clock where it was (open choice zero-clock-advance).
  const beforeZero = await read();
  const zero = await http('POST', '/control/clock/advance', { json: { ms: 0 }, token: account.token });
  if (ctx.profile === 'strict' || !(zero.status >= 200 && zero.status < 300))
    expect.status(zero, 400, 'VALIDATION_FAILED');
  else {
    const afterZero = await read();
    if (beforeZero && afterZero)
      expect.that(
        afterZero.offset === beforeZero.offset,
        afterZero.answer,
        '/offset_ms',
        `${beforeZero.offset}: a zero step moves nothing`,
        afterZero.offset,
      );
  }
  const untouched = await read(other);
  if (untouched)
    expect.that(
      untouched.offset === 0,
      untouched.answer,
      '/offset_ms',
      "0: another account's clock does not move",
      untouched.offset,
    );
}
