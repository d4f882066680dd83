import type { Test } from 'tap';
import { claimContract } from './store-contract-claims.js';
import type { StoreFactory, WithStore } from './store-contract-case.js';

export type { StoreFactory } from './store-contract-case.js';

/** The behaviour every adapter of the store port shows (embedded/ and postgres/ each run it against themselves). */
export function storeContract(t: Test, makeFactory: (t: Test) => Promise<StoreFactory>): void {
  const withStore: WithStore = (name, body) =>
    void t.test(name, async (t) => {
      const factory = await makeFactory(t);
      const store = await factory.open();
      let closed = false;
      t.teardown(async () => {
        if (!closed) await store.close();
      });
      await body(t, store, {
        open: async () => {
          if (!closed) await store.close();
          closed = true;
          return factory.open();
        },
      });
    });

  withStore('a put record reads back and a missing one is undefined', async (t, store) => {
    await store.transact((tx) => tx.put('things', 'a', { id: 'a', n: 1 }));
    t.same(await store.get('things', 'a'), { id: 'a', n: 1 });
    t.equal(await store.get('things', 'b'), undefined);
    t.equal(await store.get('nothing-here', 'a'), undefined);
  });

  withStore('transact returns what the work returns', async (t, store) => {
    t.equal(await store.transact(() => 42), 42);
  });

  withStore('several records change atomically, and a throwing transaction writes nothing', async (t, store) => {
    await store.transact((tx) => {
      tx.put('a', '1', { v: 1 });
      tx.put('b', '1', { v: 1 });
    });
    await t.rejects(
      store.transact((tx) => {
        tx.put('a', '1', { v: 2 });
        tx.put('b', '1', { v: 2 });
        throw new Error('boom');
      }),
      { message: 'boom' },
    );
    t.same(await store.get('a', '1'), { v: 1 });
    t.same(await store.get('b', '1'), { v: 1 });
  });

  withStore(
    'insertIfAbsent records once: concurrent writers of one key, one wins and the others read its record; it survives a reopen',
    async (t, store, factory) => {
      t.equal(await store.insertIfAbsent('once', 'k', { v: 'first' }), undefined, 'inserted');
      t.same(await store.insertIfAbsent('once', 'k', { v: 'second' }), { v: 'first' }, 'the record there, unchanged');
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) => store.insertIfAbsent<{ v: number }>('race', 'k', { v: i })),
      );
      const winners = answers.filter((answer) => answer === undefined).length;
      t.equal(winners, 1, 'one writer inserted');
      const stored = await store.get<{ v: number }>('race', 'k');
      t.ok(
        answers.every((answer) => answer === undefined || answer.v === stored!.v),
        "every other writer read the winner's record",
      );
      const reopened = await factory.open();
      t.same(await reopened.get('once', 'k'), { v: 'first' }, 'durable');
      await reopened.close();
    },
  );

  withStore(
    'replaceIf replaces a record only as it was read: concurrent replacers of one version, one wins; it survives a reopen',
    async (t, store, factory) => {
      await store.transact((tx) => tx.put('cas', 'k', { v: 0, list: [1, 2] }));
      const read = (await store.get('cas', 'k'))!;
      t.equal(await store.replaceIf('cas', 'k', { v: 1 }, { v: 9 }), false, 'not as expected: unchanged');
      t.same(await store.get('cas', 'k'), { v: 0, list: [1, 2] });
      t.equal(
        await store.replaceIf('cas', 'k', { list: [1, 2], v: 0 }, { v: 1 }),
        true,
        'equal content, in another key order, is as expected',
      );
      t.equal(await store.replaceIf('cas', 'k', read, { v: 2 }), false, 'the version read before is no longer there');
      t.equal(await store.replaceIf('cas', 'missing', { v: 0 }, { v: 1 }), false, 'no record: nothing replaced');
      t.equal(await store.get('cas', 'missing'), undefined, 'and none created');
      const current = (await store.get('cas', 'k'))!;
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) => store.replaceIf('cas', 'k', current, { v: 100 + i })),
      );
      t.equal(answers.filter(Boolean).length, 1, 'one replacer of the same version wins');
      const won = (await store.get<{ v: number }>('cas', 'k'))!;
      t.equal(won.v, 100 + answers.indexOf(true), 'and its record is the one kept');
      const reopened = await factory.open();
      t.same(await reopened.get('cas', 'k'), won, 'durable');
      await reopened.close();
    },
  );

  withStore('getLinked reads a record and the record its field names, in one read', async (t, store) => {
    const odd = 'acc\u0000\ud800 é';
    await store.transact((tx) => {
      tx.put('accounts', 'a1', { name: 'one' });
      tx.put('accounts', odd, { name: 'odd' });
      tx.put('tokens', 't1', { account_id: 'a1' });
      tx.put('tokens', 't2', { account_id: 'gone' });
      tx.put('tokens', 't3', { account_id: 7 });
      tx.put('tokens', 't4', { account_id: odd });
    });
    t.same(await store.getLinked('tokens', 't1', 'account_id', 'accounts'), [{ account_id: 'a1' }, { name: 'one' }]);
    t.same(
      await store.getLinked('tokens', 't2', 'account_id', 'accounts'),
      [{ account_id: 'gone' }, undefined],
      'a link to nothing',
    );
    t.same(
      await store.getLinked('tokens', 't3', 'account_id', 'accounts'),
      [{ account_id: 7 }, undefined],
      'a field that is not a string links nothing',
    );
    t.same(
      await store.getLinked('tokens', 't4', 'account_id', 'accounts'),
      [{ account_id: odd }, { name: 'odd' }],
      'any string links its record',
    );
    t.same(await store.getLinked('tokens', 'none', 'account_id', 'accounts'), [undefined, undefined]);
  });

  claimContract(withStore);

  withStore('insert of a taken id fails the whole transaction with DuplicateKeyError', async (t, store) => {
    await store.transact((tx) => tx.insert('emails', 'x@example.com', { account: '1' }));
    await t.rejects(
      store.transact((tx) => {
        tx.put('accounts', '2', { name: 'second' });
        tx.insert('emails', 'x@example.com', { account: '2' });
      }),
      { code: 'DUPLICATE_KEY' },
    );
    t.equal(await store.get('accounts', '2'), undefined);
    t.same(await store.get('emails', 'x@example.com'), { account: '1' });
  });

  withStore('a transaction reads its own writes and deletes', async (t, store) => {
    await store.transact((tx) => tx.put('c', 'gone', { v: 0 }));
    const seen = await store.transact(async (tx) => {
      tx.put('c', 'new', { v: 1 });
      tx.delete('c', 'gone');
      return { one: await tx.get('c', 'new'), gone: await tx.get('c', 'gone'), all: await tx.list('c') };
    });
    t.same(seen, { one: { v: 1 }, gone: undefined, all: [{ v: 1 }] });
  });

  withStore('delete removes a record and deleting a missing one is harmless', async (t, store) => {
    await store.transact((tx) => tx.put('c', '1', { v: 1 }));
    await store.transact((tx) => {
      tx.delete('c', '1');
      tx.delete('c', 'never');
    });
    t.equal(await store.get('c', '1'), undefined);
    t.equal(await store.count('c'), 0);
  });

  withStore('list filters by equality, sorts by one field either way, and pages', async (t, store) => {
    await store.transact((tx) => {
      for (let i = 1; i <= 9; i += 1) tx.put('orders', `o${i}`, { id: `o${i}`, n: i, kind: i % 2 ? 'odd' : 'even' });
    });
    const odd = await store.list<{ n: number }>('orders', {
      where: { kind: 'odd' },
      orderBy: { field: 'n', direction: 'desc' },
    });
    t.same(
      odd.map((o) => o.n),
      [9, 7, 5, 3, 1],
    );
    const page = await store.list<{ n: number }>('orders', {
      orderBy: { field: 'n', direction: 'asc' },
      offset: 3,
      limit: 2,
    });
    t.same(
      page.map((o) => o.n),
      [4, 5],
    );
    t.equal(await store.count('orders', { kind: 'even' }), 4);
    const bounded = await store.list<{ n: number }>('orders', {
      range: { field: 'n', min: 3, max: 5 },
      where: { kind: 'odd' },
      orderBy: { field: 'n', direction: 'asc' },
    });
    t.same(
      bounded.map((o) => o.n),
      [3, 5],
      'range bounds are inclusive and combine with where',
    );
    const fromOnly = await store.list<{ n: number }>('orders', { range: { field: 'n', min: 8 } });
    t.same(fromOnly.map((o) => o.n).sort(), [8, 9]);
    t.equal(await store.count('orders'), 9);
  });

  withStore('concurrent transactions are isolated: 100 read-modify-write increments all count', async (t, store) => {
    await store.transact((tx) => tx.put('counters', 'c', { n: 0 }));
    await Promise.all(
      Array.from({ length: 100 }, () =>
        store.transact(async (tx) => {
          const counter = await tx.get<{ n: number }>('counters', 'c');
          tx.put('counters', 'c', { n: counter!.n + 1 });
        }),
      ),
    );
    t.same(await store.get('counters', 'c'), { n: 100 });
  });

  withStore('records handed out cannot be changed behind the store', async (t, store) => {
    await store.transact((tx) => tx.put('c', '1', { nested: { v: 1 } }));
    const record = (await store.get<{ nested: { v: number } }>('c', '1'))!;
    t.throws(() => {
      (record.nested as { v: number }).v = 2;
    });
    t.same(await store.get('c', '1'), { nested: { v: 1 } });
  });

  withStore('everything committed is there after closing and opening again', async (t, store, factory) => {
    await Promise.all(Array.from({ length: 50 }, (_, i) => store.transact((tx) => tx.put('items', `i${i}`, { i }))));
    await store.transact((tx) => tx.delete('items', 'i7'));
    const reopened = await factory.open();
    t.teardown(() => reopened.close());
    t.equal(await reopened.count('items'), 49);
    t.same(await reopened.get('items', 'i49'), { i: 49 });
    t.equal(await reopened.get('items', 'i7'), undefined);
  });

  withStore(
    'a lease answers the existing records asked for, and is renewed or given back by its holder',
    async (t, store) => {
      await store.transact((tx) => {
        tx.put('jobs', 'j1', { n: 1 });
        tx.put('jobs', 'j2', { n: 2 });
      });
      t.same(
        (await store.lease('jobs', ['j1', 'j2', 'missing'], 60_000)).sort(),
        ['j1', 'j2'],
        'a missing record is not leased',
      );
      t.same(await store.lease('jobs', ['j1'], 60_000), ['j1'], 'the holder renews its own lease');
      await store.release('jobs', ['j1', 'j2']);
      t.same(await store.lease('jobs', [], 60_000), []);
    },
  );

  withStore('a message published on the bus reaches a subscriber of its channel, and no other', async (t, store) => {
    const received: unknown[] = [];
    const other: unknown[] = [];
    let arrive = () => {};
    const arrived = new Promise<void>((resolve) => (arrive = resolve));
    const unsubscribe = await store.bus.subscribe('contract_test', (message) => (received.push(message), arrive()));
    await store.bus.subscribe('contract_other', (message) => other.push(message));
    await store.bus.publish('contract_test', { hello: 'world', big: 'x'.repeat(10_000) });
    await arrived;
    t.same(received, [{ hello: 'world', big: 'x'.repeat(10_000) }], 'whatever its size');
    t.same(other, []);
    unsubscribe();
  });
}
