import t, { type Test } from 'tap';
import type { DeliveryRecord } from './delivery-record.js';
import { EmbeddedStore } from '../store/embedded/embedded-store.js';
import type { Store } from '../store/store.js';
import {
  deliveryIndexes,
  giveDueTimes,
  scheduleIndexes as schedulesServed,
  PASS_LIMIT,
  promoteNext,
  QUEUED,
  realDue,
  retimeAccount,
  scheduleIndexes,
  sessionHead,
} from './due-times.js';

// When a webhook attempt or an accreditation comes due, on the embedded
// store with its declared indexes (a list no index serves fails here): a
// session's deliveries go one at a time, in order; a clock move retimes
// only that account's waiting records.

async function openStore(t: Test): Promise<Store> {
  const store = await EmbeddedStore.open({ dir: t.testdir(), unindexedQueries: 'throw' });
  store.declareIndexes({ deliveries: deliveryIndexes, schedules: scheduleIndexes });
  t.teardown(() => store.close());
  return store;
}

const delivery = (event_id: string, fields: Partial<DeliveryRecord>): DeliveryRecord => ({
  event_id,
  account_id: 'acc_1',
  session_id: 'ses_1',
  seq: 1,
  attempts: 0,
  next_attempt_at: '2026-11-21T10:00:00.000Z',
  due_ms: QUEUED,
  ...fields,
});
const AT = Date.parse('2026-11-21T10:00:00.000Z');

t.test("a time on an account's clock is due that much earlier on the server's", async (t) => {
  t.equal(realDue('2026-11-21T10:00:00.000Z', 60_000), AT - 60_000);
  t.equal(realDue('2026-11-21T10:00:00.000Z', 0), AT);
  t.equal(QUEUED, Number.MAX_SAFE_INTEGER);
});

t.test("a session's head is its delivery of the lowest number, whatever the order they were stored in", async (t) => {
  const store = await openStore(t);
  // Ids in the opposite order to the numbers: the head is found by number, not by id.
  await store.transact((tx) => {
    tx.put('deliveries', 'a', delivery('a', { seq: 3 }));
    tx.put('deliveries', 'z', delivery('z', { seq: 1, due_ms: AT }));
    tx.put('deliveries', 'm', delivery('m', { seq: 2 }));
    tx.put('deliveries', 'x0', delivery('x0', { seq: 0, session_id: 'ses_other' }));
  });
  t.equal((await store.transact((tx) => sessionHead(tx, 'ses_1')))!.event_id, 'z');
  t.equal(await store.transact((tx) => sessionHead(tx, 'ses_none')), undefined);
});

t.test(
  'when a head closes, the next becomes due at its own time; a next that already has a time keeps it',
  async (t) => {
    const store = await openStore(t);
    await store.transact((tx) => {
      tx.put('deliveries', 'e2', delivery('e2', { seq: 2, next_attempt_at: '2026-11-21T10:00:05.000Z' }));
      tx.put('deliveries', 'e3', delivery('e3', { seq: 3 }));
    });
    await store.transact((tx) => promoteNext(tx, 'ses_1', 1000));
    t.equal(
      (await store.get<DeliveryRecord>('deliveries', 'e2'))!.due_ms,
      AT + 5000 - 1000,
      "due on the server's clock",
    );
    t.same(
      await store.get<DeliveryRecord>('deliveries', 'e2'),
      delivery('e2', { seq: 2, next_attempt_at: '2026-11-21T10:00:05.000Z', due_ms: AT + 4000 }),
      'the rest of the record kept',
    );
    t.equal((await store.get<DeliveryRecord>('deliveries', 'e3'))!.due_ms, QUEUED, 'the one behind stays queued');
    await store.transact((tx) => promoteNext(tx, 'ses_1', 9999));
    t.equal(
      (await store.get<DeliveryRecord>('deliveries', 'e2'))!.due_ms,
      AT + 4000,
      'a head already due keeps its time',
    );
    await store.transact((tx) => promoteNext(tx, 'ses_empty', 0));
  },
);

t.test(
  "a clock move retimes the account's waiting deliveries and accreditations, not its queued ones nor other accounts'",
  async (t) => {
    const store = await openStore(t);
    await store.transact((tx) => {
      tx.put('deliveries', 'head', delivery('head', { seq: 1, due_ms: AT }));
      tx.put('deliveries', 'queued', delivery('queued', { seq: 2 }));
      tx.put('deliveries', 'other', delivery('other', { account_id: 'acc_2', session_id: 'ses_2', due_ms: AT }));
      tx.put('schedules', 'ses_1', {
        session_id: 'ses_1',
        account_id: 'acc_1',
        due_at: '2026-11-21T10:01:00.000Z',
        due_ms: AT + 60_000,
      });
      tx.put('schedules', 'ses_2', {
        session_id: 'ses_2',
        account_id: 'acc_2',
        due_at: '2026-11-21T10:01:00.000Z',
        due_ms: AT + 60_000,
      });
    });
    await store.transact((tx) => retimeAccount(tx, { account_id: 'acc_1' }, 3_600_000));
    t.equal(
      (await store.get<DeliveryRecord>('deliveries', 'head'))!.due_ms,
      AT - 3_600_000,
      'an hour ahead: due an hour sooner',
    );
    t.equal((await store.get<DeliveryRecord>('deliveries', 'head'))!.event_id, 'head', 'the record kept');
    t.equal((await store.get<DeliveryRecord>('deliveries', 'queued'))!.due_ms, QUEUED);
    t.equal((await store.get<DeliveryRecord>('deliveries', 'other'))!.due_ms, AT);
    t.same(await store.get('schedules', 'ses_1'), {
      session_id: 'ses_1',
      account_id: 'acc_1',
      due_at: '2026-11-21T10:01:00.000Z',
      due_ms: AT + 60_000 - 3_600_000,
    });
    t.equal((await store.get<{ due_ms: number }>('schedules', 'ses_2'))!.due_ms, AT + 60_000);
  },
);

t.test(
  "records stored before due times get theirs, on their account's clock, in passes of PASS_LIMIT; records with one keep it",
  async (t) => {
    const store = await openStore(t);
    await store.transact((tx) => {
      tx.put('accounts', 'acc_1', { account_id: 'acc_1', clock_offset_ms: 1000 });
      for (let i = 0; i < PASS_LIMIT + 10; i += 1) {
        const { due_ms: _none, ...legacy } = delivery(`old${i}`, { seq: i });
        tx.put('deliveries', `old${i}`, legacy);
      }
      tx.put(
        'deliveries',
        'orphan',
        (({ due_ms: _none, ...legacy }) => legacy)(delivery('orphan', { account_id: 'acc_gone', session_id: 'ses_9' })),
      );
      tx.put('deliveries', 'timed', delivery('timed', { session_id: 'ses_8', due_ms: 42 }));
      tx.put('deliveries', 'a-timed', delivery('a-timed', { session_id: 'ses_7', due_ms: 7 })); // first by id
    });
    const seen: number[] = [];
    await giveDueTimes<DeliveryRecord>(
      store,
      'deliveries',
      (record) => record.event_id,
      (_tx, record, offset) => {
        seen.push(offset);
        return realDue(record.next_attempt_at, offset) + record.seq;
      },
    );
    t.equal(seen.length, PASS_LIMIT + 11, 'each legacy record once');
    t.equal((await store.get<DeliveryRecord>('deliveries', 'old0'))!.due_ms, AT - 1000);
    t.equal(
      (await store.get<DeliveryRecord>('deliveries', `old${PASS_LIMIT + 9}`))!.due_ms,
      AT - 1000 + PASS_LIMIT + 9,
      'past the first pass too',
    );
    t.equal(
      (await store.get<DeliveryRecord>('deliveries', 'orphan'))!.due_ms,
      AT + 1,
      "an account gone: its clock counts as the server's",
    );
    t.equal((await store.get<DeliveryRecord>('deliveries', 'timed'))!.due_ms, 42, 'a record with a due time keeps it');
    t.equal((await store.get<DeliveryRecord>('deliveries', 'a-timed'))!.due_ms, 7);
    t.equal(
      (await store.get<DeliveryRecord>('deliveries', 'old5'))!.session_id,
      'ses_1',
      'the rest of the record kept',
    );
  },
);

t.test(
  "the lists the passes make each have an index: earliest due first, a session's by number, an account's by due time",
  async (t) => {
    const byDue = { field: 'due_ms', type: 'number' };
    t.same(deliveryIndexes, [
      { equals: [], order: byDue },
      { equals: ['session_id'], order: { field: 'seq', type: 'number' } },
      { equals: ['account_id'], order: byDue },
    ]);
    t.same(schedulesServed, [
      { equals: [], order: byDue },
      { equals: ['account_id'], order: byDue },
    ]);
  },
);
