import t from 'tap';
import { registerAccount, startTestServer } from '../testing/test-server.js';
import { catalog } from './sessions-testkit.js';

t.test('stops are created in order, inserted at a position, deleted and reordered', async (t) => {
  const server = await startTestServer(t);
  const { token, post } = await catalog(server);
  const a = await post('/api/v1/ext/stops', { name: 'A', address: '1 Main St' });
  const b = await post('/api/v1/ext/stops', { name: 'B' });
  const c = await post('/api/v1/ext/stops', { name: 'C', position: 1 });
  t.match(a, { stop_id: /^stp_/, name: 'A', address: '1 Main St', position: 1, session_ids: [] });
  const names = async () =>
    (await server.api.get('/api/v1/ext/stops', { token })).body.data.map(
      (s: { name: string; position: number }) => `${s.position}:${s.name}`,
    );
  t.same(await names(), ['1:C', '2:A', '3:B'], 'inserting at 1 moves the others down');
  t.equal(
    (await server.api.post('/api/v1/ext/stops', { json: { name: 'far', position: 9 }, token })).status,
    400,
    'a position past the end',
  );
  t.equal((await server.api.delete(`/api/v1/ext/stops/${c.stop_id}`, { token })).status, 204);
  t.same(await names(), ['1:A', '2:B']);
  t.equal((await server.api.get(`/api/v1/ext/stops/${c.stop_id}`, { token })).status, 404);
  const reordered = await server.api.post('/api/v1/ext/stops/reorder', {
    json: { stop_ids: [b.stop_id, a.stop_id] },
    token,
  });
  t.same(
    reordered.body.data.map((s: { name: string }) => s.name),
    ['B', 'A'],
  );
  t.same(await names(), ['1:B', '2:A']);
  t.equal(
    (await server.api.post('/api/v1/ext/stops/reorder', { json: { stop_ids: [b.stop_id] }, token })).status,
    400,
    'every stop must be listed',
  );
  t.equal(
    (
      await server.api.post('/api/v1/ext/stops/reorder', {
        json: { stop_ids: [b.stop_id, 'stp_000000000000000000'] },
        token,
      })
    ).status,
    404,
  );
});

t.test(
  "a stop's session batch: 201 when all succeed, 207 per item with continue_on_error, else 400 with nothing created",
  async (t) => {
    const server = await startTestServer(t);
    const { token, post, plain } = await catalog(server);
    const stop = await post('/api/v1/ext/stops', { name: 'Depot' });
    const path = `/api/v1/ext/stops/${stop.stop_id}/sessions`;
    const good = { agreement_id: plain.agreement_id, amount_reference: 12 };

    const all = await server.api.post(path, {
      json: { sessions: [good, { ...good, amount_reference: 13 }], continue_on_error: false },
      token,
    });
    t.equal(all.status, 201);
    t.match(all.body.results, [
      { index: 0, status: 201, session: { session_payment: { origin: 'stop' } } },
      { index: 1, status: 201 },
    ]);

    const partial = await server.api.post(path, {
      json: {
        sessions: [good, { ...good, amount_reference: 'lots' }, { ...good, agreement_id: 'agr_000000000000000000' }],
        continue_on_error: true,
      },
      token,
    });
    t.equal(partial.status, 207);
    t.match(partial.body.results, [
      { index: 0, status: 201 },
      {
        index: 1,
        status: 400,
        error: { code: 'VALIDATION_FAILED', details: [{ pointer: '/sessions/1/amount_reference' }] },
      },
      { index: 2, status: 404, error: { code: 'NOT_FOUND' } },
    ]);

    const sessionsBefore = await server.store.count('sessions');
    const refused = await server.api.post(path, {
      json: { sessions: [good, { ...good, amount_reference: -5 }], continue_on_error: false },
      token,
    });
    t.equal(refused.status, 400);
    t.match(refused.body.details, [{ pointer: '/sessions/1/amount_reference' }]);
    t.equal(
      await server.store.count('sessions'),
      sessionsBefore,
      'the good item before the bad one was not created either',
    );
    const refusedUnknown = await server.api.post(path, {
      json: { sessions: [good, { ...good, agreement_id: 'agr_000000000000000000' }] },
      token,
    });
    t.equal(refusedUnknown.status, 400, 'an unknown id fails the whole batch with 400 too');
    t.equal(await server.store.count('sessions'), sessionsBefore);

    const read = await server.api.get(`/api/v1/ext/stops/${stop.stop_id}`, { token });
    t.equal(read.body.session_ids.length, 3, 'the stop lists the sessions created for it');
    t.equal(
      (
        await server.api.post('/api/v1/ext/stops/stp_000000000000000000/sessions', {
          json: { sessions: [good] },
          token,
        })
      ).status,
      404,
    );
  },
);

t.test(
  'update, history and multiple query answer the same fixed example to every account, marked x-svc-sim: mock',
  async (t) => {
    const server = await startTestServer(t);
    const first = await catalog(server);
    const second = await catalog(server);
    const answers = [];
    for (const { token } of [first, second]) {
      const update = await server.api.put('/api/v1/ext/stops/stp_anything', { json: { name: 'ignored' }, token });
      const history = await server.api.get('/api/v1/ext/stops/stp_anything/history', { token });
      const query = await server.api.post('/api/v1/ext/stops/query', { json: { any: 'thing' }, token });
      for (const response of [update, history, query]) {
        t.equal(response.status, 200);
        t.equal(response.headers.get('x-svc-sim'), 'mock');
      }
      answers.push([update.text, history.text, query.text]);
    }
    t.same(answers[0], answers[1], 'identical across accounts');
  },
);

t.test('a stop batch refused at an item names the item once', async (t) => {
  const server = await startTestServer(t);
  const account = await registerAccount(server.api);
  const token = account.key.token;
  const stop = (await server.api.post('/api/v1/ext/stops', { json: { name: 'Counter' }, token })).body
    .stop_id as string;
  const refused = await server.api.post(`/api/v1/ext/stops/${stop}/sessions`, {
    json: { sessions: [{ amount_reference: 10 }] },
    token,
  });
  t.equal(refused.status, 400);
  t.equal(refused.body.message, 'item 0: /agreement_id is required');
});
