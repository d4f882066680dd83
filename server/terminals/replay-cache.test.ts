import t from 'tap';
import { ReplayCache } from './replay-cache.js';

t.test('a key is a replay until it expires', async (t) => {
  const cache = new ReplayCache(300_000);
  t.equal(cache.checkAndRemember('a', 1_000 + 300_000, 1_000), false);
  t.equal(cache.checkAndRemember('a', 1_000 + 300_000, 2_000), true);
  t.equal(
    cache.checkAndRemember('a', 1_000 + 300_000, 301_001),
    false,
    'after expiry it is new again (and stale to the guard)',
  );
});

t.test('memory stays bounded under a steady stream of signatures', async (t) => {
  const windowMs = 1_000;
  const cache = new ReplayCache(windowMs);
  let peak = 0;
  // 100 signatures per simulated ms for 20 windows, with timestamps up to one window off either way.
  for (let now = 0; now < 20 * windowMs; now += 1) {
    for (let i = 0; i < 100; i += 1) {
      const signedAt = now + ((i * 37) % (2 * windowMs)) - windowMs;
      cache.checkAndRemember(`${now}:${i}`, signedAt + windowMs, now);
    }
    peak = Math.max(peak, cache.size);
  }
  t.ok(peak <= 100 * 2 * windowMs + 100, `peak ${peak} entries stays within rate × two windows`);
});

t.test('a key is refused up to the millisecond before it expires, and new from its expiry on', async (t) => {
  const cache = new ReplayCache(300_000);
  t.equal(cache.checkAndRemember('a', 5_000, 0), false);
  t.equal(cache.checkAndRemember('a', 5_000, 4_999), true);
  t.equal(cache.checkAndRemember('a', 9_000, 5_000), false, 'expired at 5 000: accepted anew, with its new expiry');
  t.equal(cache.checkAndRemember('a', 9_000, 8_999), true, 'and refused again until then');
});

t.test('a key accepted again keeps its new expiry when the old entry leaves', async (t) => {
  const cache = new ReplayCache(1_000);
  t.equal(cache.checkAndRemember('k', 100, 0), false);
  t.equal(cache.checkAndRemember('k', 700, 100), false, 'expired: accepted again');
  t.equal(cache.checkAndRemember('other', 900, 150), false, 'a check at 150 drops the old entry of k');
  t.equal(cache.checkAndRemember('k', 700, 200), true, 'k is still refused under its new expiry');
});

t.test('expired keys are forgotten as time passes: the size counts only what can still be replayed', async (t) => {
  const cache = new ReplayCache(1_000);
  for (let i = 0; i < 10; i += 1) cache.checkAndRemember(`old${i}`, 100, 0);
  t.equal(cache.size, 10);
  cache.checkAndRemember('new', 500, 100);
  t.equal(cache.size, 1, 'the ten expired at 100 are gone');
  t.same(cache.live(101), [['new', 500]]);
});

t.test('an entry leaves two windows after it came, even dated further ahead than the tolerance allows', async (t) => {
  const cache = new ReplayCache(1_000);
  cache.checkAndRemember('far', 10_000, 0);
  cache.checkAndRemember('probe', 3_000, 1_999);
  t.equal(cache.size, 2, 'kept for two windows');
  cache.checkAndRemember('probe2', 5_000, 2_000);
  t.same(
    cache.live(2_000).map(([key]) => key),
    ['probe', 'probe2'],
    'gone at two windows',
  );
});

t.test('live lists what is still fresh, oldest first; the expired are left out', async (t) => {
  const cache = new ReplayCache(1_000);
  cache.checkAndRemember('a', 500, 0);
  cache.checkAndRemember('b', 900, 10);
  cache.checkAndRemember('c', 600, 20);
  t.same(cache.live(550), [
    ['b', 900],
    ['c', 600],
  ]);
  t.same(cache.live(600), [['b', 900]], 'c expires at 600');
  t.same(cache.live(900), []);
});

t.test(
  'signatures remembered from before a restart are refused until they expire; expired ones are not kept',
  async (t) => {
    const cache = new ReplayCache(1_000);
    cache.remember(
      [
        ['kept', 800],
        ['expired', 500],
        ['edge', 501],
      ],
      500,
    );
    t.equal(cache.size, 2);
    t.equal(cache.checkAndRemember('kept', 800, 600), true);
    t.equal(cache.checkAndRemember('edge', 900, 500), true, 'alive one millisecond past now: remembered');
    t.equal(cache.checkAndRemember('expired', 900, 600), false, 'expired at the load: new');
    t.same(
      cache.live(700).map(([key]) => key),
      ['kept', 'expired'],
      'in the order they came',
    );
    cache.remember([['later', 2_000]], 1_000);
    t.equal(cache.checkAndRemember('later', 2_000, 1_500), true);
  },
);

t.test('memory is given back: entries that left do not pile up in the queue', async (t) => {
  const cache = new ReplayCache(10);
  for (let now = 0; now < 50_000; now += 1) cache.checkAndRemember(`k${now}`, now + 5, now);
  t.ok(cache.heldEntries < 3_000, `${cache.heldEntries} entries held after 50 000 expired ones`);
  t.equal(cache.size, 5);
});

t.test(
  'expiries out of the order of arrival: a key behind a later-expiring one is new once its own time has come',
  async (t) => {
    const cache = new ReplayCache(10_000);
    t.equal(cache.checkAndRemember('late', 1_000, 0), false);
    t.equal(cache.checkAndRemember('early', 500, 1), false, 'signed earlier, so expiring earlier, but come later');
    t.equal(cache.checkAndRemember('early', 500, 499), true, 'refused until its expiry');
    t.equal(
      cache.checkAndRemember('early', 900, 500),
      false,
      'from its expiry on, new, though still behind "late" in the queue',
    );
    t.equal(cache.checkAndRemember('early', 900, 600), true, 'and refused under its new expiry');
  },
);

t.test('a key accepted anew keeps its new expiry when its old entry leaves from behind another', async (t) => {
  const cache = new ReplayCache(10_000);
  cache.checkAndRemember('head', 1_000, 0);
  cache.checkAndRemember('k', 100, 1);
  t.equal(cache.checkAndRemember('k', 2_000, 150), false, 'expired at 100, accepted again until 2 000');
  cache.checkAndRemember('probe', 5_000, 1_000); // "head" leaves, and k's old entry behind it
  t.equal(cache.checkAndRemember('k', 2_000, 1_001), true, 'k is still refused under its new expiry');
});

t.test('signatures remembered from before a restart leave when they expire, like any', async (t) => {
  const cache = new ReplayCache(10_000);
  cache.remember(
    [
      ['a', 100],
      ['b', 200],
    ],
    0,
  );
  cache.checkAndRemember('c', 5_000, 300);
  t.equal(cache.size, 1, 'a and b are gone');
});
