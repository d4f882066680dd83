import type { Check, CheckContext } from './check.js';
import { createAgreement, need, registerAccount } from './fixtures.js';

// Stops (INTERFACE.md §5; Simulator-only surfaces 5; INTERFACE.md §5).

async function order(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const create = async (name: string) =>
    need(await http('POST', '/api/v1/ext/stops', { json: { name }, token: account.token }), 201, 'creating a stop')
      .stop_id as string;
  const [a, b, c] = [await create('first'), await create('second'), await create('third')];
  const listed = async (why: string, expected?: string[]) => {
    const answer = await http('GET', '/api/v1/ext/stops', { token: account.token });
    if (!expect.status(answer, 200)) return;
    const stops = (answer.body?.data ?? []) as Array<{ stop_id: string; position: number }>;
    const positions = stops.map((s) => s.position);
    expect.that(
      positions.every((p, i) => i === 0 || positions[i - 1]! <= p),
      answer,
      '/data',
      `ordered by position (${why})`,
      positions.join(', '),
    );
    if (expected)
      expect.that(
        JSON.stringify(stops.map((s) => s.stop_id)) === JSON.stringify(expected),
        answer,
        '/data',
        `${expected.join(', ')} (${why})`,
        stops.map((s) => s.stop_id).join(', '),
      );
  };
  await listed('as created');
  expect.success(
    await http('POST', '/api/v1/ext/stops/reorder', { json: { stop_ids: [c, a, b] }, token: account.token }),
  ); // open choice success-status
  await listed('after reorder', [c, a, b]);
  expect.status(
    await http('POST', '/api/v1/ext/stops/reorder', {
      json: { stop_ids: [b, 'stp_no_such_stop_000'] },
      token: account.token,
    }),
    404,
    'NOT_FOUND',
  );
  await listed('after a refused reorder: unchanged', [c, a, b]);
}

async function batch(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const agreement = await createAgreement(http, account);
  const stop = need(
    await http('POST', '/api/v1/ext/stops', { json: { name: 'batch' }, token: account.token }),
    201,
    'creating a stop',
  ).stop_id as string;
  const good = { agreement_id: agreement, amount_reference: 3 };
  const bad = { agreement_id: agreement, amount_reference: -1 };
  const send = (sessions: unknown[], continueOnError?: boolean) =>
    http('POST', `/api/v1/ext/stops/${stop}/sessions`, {
      json: { sessions, ...(continueOnError === undefined ? {} : { continue_on_error: continueOnError }) },
      token: account.token,
    });
  const sessionsOfStop = async () =>
    ((await http('GET', `/api/v1/ext/stops/${stop}`, { token: account.token })).body?.session_ids ?? [])
      .length as number;
  const all = await send([good, good], false);
  if (expect.status(all, 201))
    expect.that((all.body?.results ?? []).length === 2, all, '/results', 'one result per item', all.body?.results);
  const before = await sessionsOfStop();
  const partial = await send([good, bad], true);
  if (expect.status(partial, 207)) {
    const results = (partial.body?.results ?? []) as Array<{ index: number; status: number }>;
    expect.that(
      results.find((r) => r.index === 0)?.status === 201 && results.find((r) => r.index === 1)?.status === 400,
      partial,
      '/results',
      'item 0 → 201, item 1 → 400',
      results.map((r) => `${r.index}:${r.status}`).join(' '),
    );
  }
  const afterPartial = await sessionsOfStop();
  expect.that(
    afterPartial === before + 1,
    null,
    '',
    'the good item of a 207 batch kept on the stop',
    `${afterPartial - before} added`,
  );
  expect.status(await send([good, bad], false), 400, 'VALIDATION_FAILED');
  expect.status(await send([good, bad]), 400, 'VALIDATION_FAILED');
  const afterRefused = await sessionsOfStop();
  expect.that(
    afterRefused === afterPartial,
    null,
    '',
    'a batch refused at its first error creates nothing',
    `${afterRefused - afterPartial} added`,
  );
}

async function mocks(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const answers = [];
  for (const account of [await registerAccount(http), await registerAccount(http)]) {
    const stop = need(
      await http('POST', '/api/v1/ext/stops', { json: { name: 'mocked' }, token: account.token }),
      201,
      'creating a stop',
    ).stop_id as string;
    const got = [
      await http('PUT', `/api/v1/ext/stops/${stop}`, { json: { name: 'changed' }, token: account.token }),
      await http('GET', `/api/v1/ext/stops/${stop}/history`, { token: account.token }),
      await http('POST', '/api/v1/ext/stops/query', { json: {}, token: account.token }),
    ];
    for (const answer of got)
      if (expect.status(answer, 200))
        expect.that(
          answer.headers.get('x-svc-sim') === 'mock',
          answer,
          'header:x-svc-sim',
          'mock',
          answer.headers.get('x-svc-sim') ?? 'none',
        );
    answers.push(got);
  }
  for (let i = 0; i < 3; i += 1)
    expect.that(
      answers[0]![i]!.text === answers[1]![i]!.text,
      answers[1]![i]!,
      '',
      'the same fixed data for every account',
      `${answers[1]![i]!.text.slice(0, 80)} vs ${answers[0]![i]!.text.slice(0, 80)}`,
    );
}

export const stopChecks: Check[] = [
  {
    id: 'stops.order',
    decisions: ['success-status'],
    title:
      'the stop list ordered by position; reorder sets the order; a reorder naming an unknown stop is 404 and changes nothing',
    source: 'INTERFACE.md §5 (stops)',
    operations: ['createStop', 'listStops', 'reorderStops'],
    run: order,
  },
  {
    id: 'stops.batch',
    title:
      'stops session batch: 201 all good, 207 with continue_on_error, 400 at the first error otherwise with nothing created',
    source: 'INTERFACE.md §5 (stops batch)',
    operations: ['addStopSessions', 'getStop'],
    run: batch,
  },
  {
    id: 'stops.mocks',
    decisions: ['answer-bodies'],
    title: 'stops update, history and query: 200, x-svc-sim: mock, the same data for every account',
    source: 'INTERFACE.md §5',
    operations: ['updateStopMock', 'getStopHistoryMock', 'queryStopsMock'],
    run: mocks,
  },
];
