import t from 'tap';
import { ReplayCache } from './replay-cache.js';

t.test('a key is a replay until it expires', async (t) => {
  const cache = new ReplayCache(300_000);
  t.equal(cache.checkAndRemember('a', 1_000 + 300_000, 1_000), false);
  t.equal(cache.checkAndRemember('a', 1_000 + 300_000, 2_000), true);
  t.equal(cache.checkAndRemember('a', 1_000 + 300_000, 301_001), false, 'after expiry it is new again (and stale to the guard)');
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
