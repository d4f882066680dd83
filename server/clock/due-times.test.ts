import t from 'tap';
import type { DeliveryRecord } from './delivery-record.js';
import type { ScheduleRecord } from './schedule-record.js';
import { registerAccount, startTestServer } from '../testing/test-server.js';
import { QUEUED } from './due-times.js';

// The background passes find what is due through an index on the real due
// time: thousands of deliveries waiting on a ladder or behind their
// session's first, and schedules not yet due, are not even looked at.

const WAITING = 3000;
const SLACK = 3;

t.test(
  'a dispatcher pass examines what is due, not the deliveries waiting on a ladder or queued behind their session',
  async (t) => {
    const server = await startTestServer(t);
    const { store, clock } = server;
    const account = await registerAccount(server.api);
    const now = clock.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    await store.transact((tx) => {
      for (let i = 0; i < WAITING; i += 1) {
        // A head due in an hour, and one queued behind it.
        const head: DeliveryRecord = {
          event_id: `evt_wait_${i}`,
          account_id: account.account_id,
          session_id: `ses_wait_${i}`,
          seq: 1,
          attempts: 3,
          next_attempt_at: iso(now + 3_600_000),
          due_ms: now + 3_600_000,
        };
        tx.put('deliveries', head.event_id, head);
        tx.put('deliveries', `evt_queued_${i}`, {
          ...head,
          event_id: `evt_queued_${i}`,
          seq: 2,
          attempts: 0,
          next_attempt_at: iso(now),
          due_ms: QUEUED,
        });
      }
      // Five due now, whose events are gone (reset meanwhile): each is attempted, finds none, and goes.
      for (let i = 0; i < 5; i += 1) {
        tx.put('deliveries', `evt_due_${i}`, {
          event_id: `evt_due_${i}`,
          account_id: account.account_id,
          session_id: `ses_due_${i}`,
          seq: 1,
          attempts: 0,
          next_attempt_at: iso(now - 1000),
          due_ms: now - 1000,
        } satisfies DeliveryRecord);
      }
    });
    const before = store.examined;
    const attempted = await server.app.jobs.dispatcher.runDue();
    const examined = store.examined - before;
    t.equal(attempted, 5, 'the five due deliveries were taken');
    t.ok(examined <= 5 * 3 + SLACK, `examined ${examined} records among ${WAITING * 2 + 5} deliveries`);
    t.equal(await store.count('deliveries'), WAITING * 2, 'the waiting ones stay');

    // The clock moved an hour and a second: the account's waiting heads are due, their queued ones still wait.
    const moved = await server.api.post('/control/clock/advance', {
      json: { ms: 3_601_000 },
      token: account.key.token,
    });
    t.equal(moved.status, 200);
    const heads = await store.list<DeliveryRecord>('deliveries', {
      range: { field: 'due_ms', max: clock.now() },
      orderBy: { field: 'due_ms', direction: 'asc' },
    });
    t.equal(
      heads.filter((d) => d.seq === 1).length,
      0,
      'the heads were attempted when the clock moved (their events gone, they went)',
    );
    const promoted = await store.list<DeliveryRecord>('deliveries', { where: { session_id: 'ses_wait_7' } });
    t.same(
      promoted.map((d) => [d.event_id, d.due_ms! <= clock.now()]),
      [],
      'and each queued one, promoted in its turn, went the same way',
    );
  },
);

t.test(
  "deliveries and schedules of an earlier version (no due time) are given one on the first pass: the session's first due, the rest queued",
  async (t) => {
    const server = await startTestServer(t);
    const { store, clock } = server;
    const account = await registerAccount(server.api);
    const later = new Date(clock.now() + 60_000).toISOString();
    await store.transact((tx) => {
      for (const seq of [2, 1, 3]) {
        tx.put('deliveries', `evt_old_${seq}`, {
          event_id: `evt_old_${seq}`,
          account_id: account.account_id,
          session_id: 'ses_old',
          seq,
          attempts: 1,
          next_attempt_at: later,
        } satisfies DeliveryRecord);
      }
      tx.put('schedules', 'ses_sched', {
        session_id: 'ses_sched',
        account_id: account.account_id,
        due_at: later,
      } satisfies ScheduleRecord);
    });
    t.equal(await server.app.jobs.dispatcher.runDue(), 0, 'nothing due yet');
    await server.app.jobs.scheduler.runDue();
    const dues = Object.fromEntries(
      (await store.list<DeliveryRecord>('deliveries', { where: { session_id: 'ses_old' } })).map((d) => [
        d.seq,
        d.due_ms,
      ]),
    );
    t.same(
      dues,
      { 1: Date.parse(later), 2: QUEUED, 3: QUEUED },
      'the first of the session due at its time, the others queued',
    );
    t.equal(
      (await store.get<ScheduleRecord>('schedules', 'ses_sched'))?.due_ms,
      Date.parse(later),
      'the schedule due at its time',
    );
  },
);

t.test('a scheduler pass with nothing due examines nothing, however many schedules wait', async (t) => {
  const server = await startTestServer(t);
  const { store, clock } = server;
  await store.transact((tx) => {
    for (let i = 0; i < WAITING; i += 1) {
      const dueAt = clock.now() + 86_400_000 + i;
      tx.put('schedules', `ses_s_${i}`, {
        session_id: `ses_s_${i}`,
        account_id: `acc_${i % 50}`,
        due_at: new Date(dueAt).toISOString(),
        due_ms: dueAt,
      } satisfies ScheduleRecord);
    }
  });
  await server.app.jobs.scheduler.runDue(); // upgrades nothing, once
  const before = store.examined;
  t.equal(await server.app.jobs.scheduler.runDue(), 0);
  t.ok(store.examined - before <= SLACK, `examined ${store.examined - before} among ${WAITING} schedules`);
});
