import t from 'tap';
import { formatSteal, median, parseProcStat, percentile, stealPercent } from './stats.js';

t.test('percentile is the nearest rank', async (t) => {
  t.equal(percentile([5, 1, 4, 2, 3], 50), 3);
  t.equal(
    percentile(
      Array.from({ length: 100 }, (_, i) => i + 1),
      99,
    ),
    99,
  );
  t.ok(Number.isNaN(percentile([], 99)));
});

t.test('steal is read from the cpu line of /proc/stat and given as a share of all CPU time', async (t) => {
  const at = (steal: number, idle: number) =>
    `cpu  100 0 50 ${idle} 10 0 5 ${steal} 7 0\ncpu0 1 2 3 4 5 6 7 8 9 10\nintr 1\n`;
  t.same(parseProcStat(at(20, 800)), { total: 985, steal: 20 }, 'guest time is not counted twice');
  t.equal(stealPercent(parseProcStat(at(20, 800)), parseProcStat(at(30, 890))), 10);
  t.equal(stealPercent(null, parseProcStat(at(30, 890))), null);
  t.equal(stealPercent(parseProcStat(at(20, 800)), parseProcStat(at(20, 800))), null, 'no time passed');
  t.throws(() => parseProcStat('intr 1\n'), /no cpu line/);
});

t.test('the median of rounds is the middle value, the upper one of an even count', async (t) => {
  t.equal(median([3, 1, 2]), 2);
  t.equal(median([4, 1, 3, 2]), 3);
});

t.test('steal shows with one decimal, or n/a without /proc', async (t) => {
  t.equal(formatSteal(12.345), '12.3 %');
  t.equal(formatSteal(null), 'n/a');
});
