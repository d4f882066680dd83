import { isDeepStrictEqual } from 'node:util';
import type { WithStore } from './store-contract-case.js';

// The store contract's cases for claims (Store.claimAndRead,
// claimAndWrite) and the sweep of their markers (deleteUpTo): the
// replay protection of signed requests rests on them.

/**
 * Claims made with inserts over one thing and its owner (put there first,
 * as `things` T1 owned by `owners` o1 at clock 5): each claim holds until
 * 2000.
 */
export const claimedInserts = {
  claim: (id: string, now: number) => ({ collection: 'claims', id, value: { until: 2000 }, liveUntil: 'until', now }),
  read: { collection: 'things', id: 'T1', field: 'owner', linkedCollection: 'owners' },
  basis: { record: { owner: 'o1', v: 1 }, linkedFields: { clock: 5 } },
  insert: (id: string) => ({ kind: 'insert' as const, collection: 'boxes', id, value: { id } }),
};

export function claimContract(withStore: WithStore): void {
  withStore(
    'a claim is made once while it is live, taken over once it is not, and read with a record and its link in one step',
    async (t, store, factory) => {
      await store.transact((tx) => {
        tx.put('things', 'T1', { owner: 'o1', v: 1 });
        tx.put('owners', 'o1', { clock: 5, name: 'one' });
      });
      const claim = (id: string, now: number) => ({
        collection: 'claims',
        id,
        value: { id, until: now + 100 },
        liveUntil: 'until',
        now,
      });
      const read = { collection: 'things', id: 'T1', field: 'owner', linkedCollection: 'owners' };
      t.same(await store.claimAndRead(claim('c1', 1000), read), {
        claimed: true,
        record: { owner: 'o1', v: 1 },
        linked: { clock: 5, name: 'one' },
      });
      t.same(
        await store.claimAndRead(claim('c1', 1099), read),
        { claimed: false, record: { owner: 'o1', v: 1 }, linked: { clock: 5, name: 'one' } },
        'live: not claimed again',
      );
      t.same(
        await store.claimAndRead(claim('c1', 1100), { ...read, id: 'none' }),
        { claimed: true },
        'past its time: taken over; nothing to read',
      );
      t.same(await store.get('claims', 'c1'), { id: 'c1', until: 1200 });
      const answers = await Promise.all(
        Array.from({ length: 16 }, () => store.claimAndRead(claim('race', 2000), read)),
      );
      t.equal(answers.filter((answer) => answer.claimed).length, 1, 'concurrent claimers of one id: one wins');
      const reopened = await factory.open();
      t.equal((await reopened.claimAndRead(claim('race', 2001), read)).claimed, false, 'durable');
      await reopened.close();
    },
  );

  withStore(
    'a write made with a claim: only when the claim is new and what it was decided on still holds',
    async (t, store, factory) => {
      await store.transact((tx) => {
        tx.put('things', 'T1', { owner: 'o1', v: 1 });
        tx.put('owners', 'o1', { clock: 5, name: 'one' });
        tx.put('boxes', 'b1', { n: 1 });
      });
      const claim = (id: string) => ({
        collection: 'claims',
        id,
        value: { until: 9999 },
        liveUntil: 'until',
        now: 1000,
      });
      const read = { collection: 'things', id: 'T1', field: 'owner', linkedCollection: 'owners' };
      const basis = { record: { owner: 'o1', v: 1 }, linkedFields: { clock: 5 } };
      const insert = { kind: 'insert' as const, collection: 'boxes', id: 'b2', value: { n: 2 } };
      t.same(await store.claimAndWrite(claim('w1'), read, basis, insert), { claimed: true, written: true });
      t.same(
        await store.claimAndWrite(claim('w2'), read, basis, insert),
        { claimed: true, written: false, existing: { n: 2 } },
        'an insert of a taken id: the record there',
      );
      t.same(
        await store.claimAndWrite(claim('w2'), read, basis, { ...insert, id: 'b3' }),
        { claimed: false, written: false },
        'a claim made before: nothing written',
      );
      t.equal(await store.get('boxes', 'b3'), undefined);
      const replace = { kind: 'replace' as const, collection: 'boxes', id: 'b1', expected: { n: 1 }, value: { n: 10 } };
      t.same(
        await store.claimAndWrite(claim('w3'), read, basis, { ...replace, expected: { n: 0 } }),
        { claimed: true, written: false },
        'a replacement of a record no longer as read',
      );
      t.same(await store.claimAndWrite(claim('w4'), read, basis, replace), { claimed: true, written: true });
      t.same(await store.get('boxes', 'b1'), { n: 10 });
      await store.transact((tx) => tx.put('owners', 'o1', { clock: 6, name: 'one' }));
      t.same(
        await store.claimAndWrite(claim('w5'), read, basis, { ...insert, id: 'b5' }),
        {
          claimed: true,
          written: false,
          changed: { record: { owner: 'o1', v: 1 }, linked: { clock: 6, name: 'one' } },
        },
        'the linked record changed: claimed, nothing written, both as they are now',
      );
      await store.transact((tx) => tx.delete('owners', 'o1'));
      t.same(
        await store.claimAndWrite(claim('w6'), read, { ...basis, linkedFields: { clock: 6 } }, { ...insert, id: 'b6' }),
        { claimed: true, written: false, changed: { record: { owner: 'o1', v: 1 } } },
        'the link is gone: nothing written',
      );
      t.same([await store.get('boxes', 'b5'), await store.get('boxes', 'b6')], [undefined, undefined]);
      const reopened = await factory.open();
      t.same(await reopened.get('boxes', 'b2'), { n: 2 }, 'the write is durable');
      t.same(await reopened.get('claims', 'w6'), { until: 9999 }, 'and so is a claim that wrote nothing');
      await reopened.close();
    },
  );

  withStore(
    'a claim made with an insert is seen by the same claim again, live or not, and by racing claimers',
    async (t, store, factory) => {
      await store.transact((tx) => {
        tx.put('things', 'T1', { owner: 'o1', v: 1 });
        tx.put('owners', 'o1', { clock: 5 });
      });
      const { claim, read, basis, insert } = claimedInserts;
      t.same(await store.claimAndWrite(claim('k1', 1000), read, basis, insert('b1')), { claimed: true, written: true });
      t.same(
        await store.claimAndWrite(claim('k1', 1999), read, basis, insert('b1')),
        { claimed: false, written: false },
        'the same claim with the same insert, while live: not claimed again',
      );
      t.same(
        await store.claimAndWrite(claim('k1', 2000), read, basis, insert('b1')),
        { claimed: true, written: false, existing: { id: 'b1' } },
        'past its time: claimed anew, and the record is there',
      );
      const same = await Promise.all(
        Array.from({ length: 12 }, () => store.claimAndWrite(claim('k2', 1000), read, basis, insert('b2'))),
      );
      t.same(
        same.map((answer) => answer.claimed).sort(),
        [...Array<boolean>(11).fill(false), true],
        'concurrent claimers of one claim and insert: one claims, and writes',
      );
      t.equal(same.filter((answer) => answer.written).length, 1);
      const others = await Promise.all(
        Array.from({ length: 12 }, (_, n) => store.claimAndWrite(claim(`k3-${n}`, 1000), read, basis, insert('b3'))),
      );
      t.ok(
        others.every((answer) => answer.claimed),
        'concurrent claimers of one insert, each with a claim of its own: all claim',
      );
      t.equal(others.filter((answer) => answer.written).length, 1, 'one writes');
      t.ok(
        others.every((answer) => answer.written || isDeepStrictEqual(answer.existing, { id: 'b3' })),
        'the others are given the record there',
      );
      const reopened = await factory.open();
      t.same(
        await reopened.claimAndWrite(claim('k2', 1500), read, basis, insert('b2')),
        { claimed: false, written: false },
        'durable',
      );
      await reopened.close();
    },
  );

  withStore(
    'deleteUpTo deletes the records whose number field is at most the bound, and no other',
    async (t, store) => {
      store.declareIndexes({ marks: [{ equals: [], order: { field: 'until', type: 'number' } }] });
      await store.transact((tx) => {
        for (const [id, until] of [
          ['a', 1],
          ['b', 5],
          ['c', 6],
          ['d', 100],
        ] as const)
          tx.put('marks', id, { until });
      });
      await store.deleteUpTo('marks', 'until', 5);
      t.same(
        (await store.list('marks', { orderBy: { field: 'until', direction: 'asc' } })).map((mark) => mark.until),
        [6, 100],
      );
    },
  );
}
