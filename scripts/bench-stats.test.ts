import t from 'tap';
import { calm, parseProcStat, percentile, roundsUntilClean, stealPercent } from './bench-stats.js';

t.test('percentile is the nearest rank', async (t) => {
  t.equal(percentile([5, 1, 4, 2, 3], 50), 3);
  t.equal(percentile(Array.from({ length: 100 }, (_, i) => i + 1), 99), 99);
  t.ok(Number.isNaN(percentile([], 99)));
});

t.test('steal is read from the cpu line of /proc/stat and given as a share of all CPU time', async (t) => {
  const at = (steal: number, idle: number) => `cpu  100 0 50 ${idle} 10 0 5 ${steal} 7 0\ncpu0 1 2 3 4 5 6 7 8 9 10\nintr 1\n`;
  t.same(parseProcStat(at(20, 800)), { total: 985, steal: 20 }, 'guest time is not counted twice');
  t.equal(stealPercent(parseProcStat(at(20, 800)), parseProcStat(at(30, 890))), 10);
  t.equal(stealPercent(null, parseProcStat(at(30, 890))), null);
  t.equal(stealPercent(parseProcStat(at(20, 800)), parseProcStat(at(20, 800))), null, 'no time passed');
  t.throws(() => parseProcStat('intr 1\n'), /no cpu line/);
});

t.test('rounds run until enough are clean, and medians come from those', async (t) => {
  const steals = [5, 0.5, 30, 1, 0];
  const run = await roundsUntilClean(2, 6, async (n) => ({ n, steal: steals[n - 1]! }), (r) => calm(r.steal));
  t.same(run.all.map((r) => [r.result.n, r.counted]), [[1, false], [2, true], [3, false], [4, true]], 'stops at the second clean round');
  t.same(run.counted.map((r) => r.n), [2, 4]);
  t.equal(run.noneClean, false);
  const stormy = await roundsUntilClean(2, 3, async (n) => ({ n, steal: 10 }), (r) => calm(r.steal));
  t.equal(stormy.all.length, 3, 'gives up after the most rounds allowed');
  t.same(stormy.counted.map((r) => r.n), [1, 2, 3], 'with none clean, every round counts, and it says so');
  t.equal(stormy.noneClean, true);
  t.ok(calm(null), 'without /proc there is no steal to judge by');
  t.ok(calm(2) && !calm(2.1));
});
