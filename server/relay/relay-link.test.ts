import t from 'tap';
import { silentLogger } from '../log.js';
import type { BusMessage } from '../store/store.js';
import type { Store } from '../store/store.js';
import { RelayLink, type LocalRelays } from './relay-link.js';

// One relay per key across instances: an instance told that a relay
// connected elsewhere reads the route and closes its own relay if the route
// no longer names it. The read is held here, so that a newer relay can
// connect while it is under way, as it did under load on a CI run.

type Route = { account_id: string; instance: string; connected_at: string };

function harness() {
  let deliver: (message: BusMessage) => void = () => undefined;
  let route: Route | undefined = { account_id: 'acc', instance: 'A', connected_at: 't0' };
  const heldReads: Array<() => void> = [];
  const store = {
    bus: {
      subscribe: async (_channel: string, handler: (message: BusMessage) => void) => {
        deliver = handler;
      },
      publish: async () => undefined,
    },
    // Every read waits until the test lets it go, answering the route as it was when the read began.
    get: (_collection: string, _id: string) => {
      const seen = route;
      return new Promise((resolve) => heldReads.push(() => resolve(seen)));
    },
  } as unknown as Store;
  const connections = new Map<string, object>();
  const closed: object[] = [];
  const local: LocalRelays = {
    sendLocal: () => null,
    connectionOf: (accountId) => connections.get(accountId),
    replacedElsewhere: (accountId, connection) => {
      if (connections.get(accountId) === connection) {
        closed.push(connection);
        connections.delete(accountId);
      }
    },
  };
  const link = new RelayLink(store, 'B', local, silentLogger);
  return {
    link,
    connections,
    closed,
    setRoute: (next: Route) => (route = next),
    announceFrom: (instance: string) => deliver({ type: 'connected', account_id: 'acc', instance }),
    releaseReads: async () => {
      for (const release of heldReads.splice(0)) release();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

t.test('a relay that connects while the route is being read is not closed on that older route', async (t) => {
  const h = harness();
  await h.link.start();
  // The older relay's announcement (from A) arrives; the read of the route begins and returns A.
  h.announceFrom('A');
  // Meanwhile the newer relay connects here: its route is written, then its connection kept.
  h.setRoute({ account_id: 'acc', instance: 'B', connected_at: 't1' });
  const newer = {};
  h.connections.set('acc', newer);
  await h.releaseReads();
  t.same(h.closed, [], 'the newer relay is not closed');
  t.equal(h.connections.get('acc'), newer, 'and holds the key');
});

t.test('a relay that was here before the route moved is closed', async (t) => {
  const h = harness();
  await h.link.start();
  const older = {};
  h.connections.set('acc', older);
  h.setRoute({ account_id: 'acc', instance: 'A', connected_at: 't1' });
  h.announceFrom('A');
  await h.releaseReads();
  t.same(h.closed, [older], 'the older relay goes');
});

t.test('a relay here that replaced the judged one during the read is kept', async (t) => {
  const h = harness();
  await h.link.start();
  const first = {};
  h.connections.set('acc', first);
  h.setRoute({ account_id: 'acc', instance: 'A', connected_at: 't1' });
  h.announceFrom('A');
  // A third relay connects here while the read is held: it replaced the first one locally.
  h.setRoute({ account_id: 'acc', instance: 'B', connected_at: 't2' });
  const third = {};
  h.connections.set('acc', third);
  await h.releaseReads();
  t.same(h.closed, [], 'nothing closed on the stale route');
  t.equal(h.connections.get('acc'), third);
});
