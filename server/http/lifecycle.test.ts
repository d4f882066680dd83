import t, { type Test } from 'tap';
import { createApp } from '../app.js';
import { ManualClock } from '../clock.js';
import { defaultConfig } from '../config.js';
import { EmbeddedStore } from '../store/embedded/embedded-store.js';
import { StoreDecorator } from '../testing/store-decorator.js';
import type { Query, Store, StoredRecord, Transaction } from '../store/store.js';
import { startApp } from './lifecycle.js';

// The one lifecycle every entry point uses: its stop order, with every job
// running on its timers, and nothing touching the store after it closed.

/** The store as the app uses it, with every call after close() recorded (and refused, as a closed store would). */
class Watched extends StoreDecorator {
  closed = false;
  readonly afterClose: string[] = [];
  readonly calls: string[] = [];

  private note(call: string): void {
    this.calls.push(call);
    if (this.closed) {
      this.afterClose.push(call);
      throw new Error(`${call} after the store closed`);
    }
  }

  override get<T extends StoredRecord>(collection: string, id: string) {
    this.note(`get ${collection}`);
    return super.get<T>(collection, id);
  }

  override list<T extends StoredRecord>(collection: string, query?: Query) {
    this.note(`list ${collection}`);
    return super.list<T>(collection, query);
  }

  override transact<R>(work: (tx: Transaction) => Promise<R> | R) {
    this.note('transact');
    return super.transact(work);
  }

  override async close(): Promise<void> {
    this.note('close');
    await super.close();
    this.closed = true;
  }
}

/** The app's repeating timers: every job runs on one, made by setInterval and ended by clearInterval. */
function watchIntervals(t: Test): Set<unknown> {
  const live = new Set<unknown>();
  const { setInterval: realSet, clearInterval: realClear } = globalThis;
  globalThis.setInterval = ((...args: Parameters<typeof realSet>) => {
    const handle = realSet(...args);
    live.add(handle);
    return handle;
  }) as typeof realSet;
  globalThis.clearInterval = ((handle: Parameters<typeof realClear>[0]) => {
    live.delete(handle);
    realClear(handle);
  }) as typeof realClear;
  t.teardown(() => {
    globalThis.setInterval = realSet;
    globalThis.clearInterval = realClear;
  });
  return live;
}

t.test(
  'stopping: jobs stopped, requests answered, deliveries recorded, then the store closed, and nothing after',
  async (t) => {
    const dir = t.testdir();
    const store = new Watched(await EmbeddedStore.open({ dir }));
    const clock = new ManualClock();
    const config = { ...defaultConfig, dataDir: dir, logLevel: 'silent' as const, scryptCost: 1024 };
    const app = createApp({ store: store as Store, clock, config });
    const intervals = watchIntervals(t);
    const started = await startApp(app, store, { host: '127.0.0.1', port: 0, graceMs: 0 });
    t.ok(intervals.size >= 3, 'the scheduler, the dispatcher and the purge run on timers of their own');

    // Some work for every job: an account (its sessions, deliveries and schedules are read by the jobs).
    const registered = await fetch(`${started.baseUrl}/console/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'stop@example.com', password: 'correct horse battery' }),
    });
    t.equal(registered.status, 201);
    // A request in flight while stopping is answered before the store closes.
    const inFlight = fetch(`${started.baseUrl}/health`).then(
      (answer) => answer.status,
      () => 'cut',
    );
    const stopping = started.stop();
    t.equal(started.stop(), started.stop(), 'stopping again is the same stop');
    await stopping;
    t.ok(store.closed, 'the store is closed when stop resolves');
    t.equal(store.calls.at(-1), 'close', 'and closing it was the last thing done with it');
    t.ok(
      [200, 'cut'].includes(await inFlight),
      'the request in flight had its answer, or (no grace) its connection cut',
    );

    // Whatever a job would do next would touch the store: every timer of the app is gone.
    t.equal(intervals.size, 0, 'no timer of the app is left to fire');
    await new Promise((resolve) => setImmediate(resolve));
    t.same(store.afterClose, [], 'nothing touched the store after it closed');
  },
);

t.test('a listen that fails stops the scheduler it started, and leaves the store open', async (t) => {
  const dir = t.testdir();
  const store = new Watched(await EmbeddedStore.open({ dir }));
  const config = { ...defaultConfig, dataDir: dir, logLevel: 'silent' as const };
  const first = createApp({ store: store as Store, clock: new ManualClock(), config });
  const started = await startApp(first, store, { host: '127.0.0.1', port: 0, graceMs: 0 });
  const port = Number(new URL(started.baseUrl).port);

  const otherDir = `${t.testdir()}/other`;
  const other = new Watched(await EmbeddedStore.open({ dir: otherDir }));
  const second = createApp({
    store: other as Store,
    clock: new ManualClock(),
    config: { ...config, dataDir: otherDir },
  });
  const intervals = watchIntervals(t);
  let refused: NodeJS.ErrnoException | undefined;
  await t.rejects(
    startApp(second, other, {
      host: '127.0.0.1',
      port,
      onError: (error) => (refused = error),
    }),
    { code: 'EADDRINUSE' },
  );
  t.equal(refused?.code, 'EADDRINUSE', 'the caller is told, to say it in its words');
  t.equal(intervals.size, 0, 'no job left running');
  t.notOk(other.closed, 'the caller decides what becomes of its store');
  await other.close();
  await started.stop();
});
