import t from 'tap';
import { durationOf, formatDuration, parseDuration } from './duration.js';

t.test('a duration is a number with its unit', async (t) => {
  t.equal(parseDuration('200ms'), 200);
  t.equal(parseDuration('5s'), 5000);
  t.equal(parseDuration('1.5s'), 1500);
  t.equal(parseDuration('2m'), 120_000);
  t.equal(parseDuration('1h'), 3_600_000);
  t.equal(parseDuration('5'), null, 'a bare number has no unit');
  t.equal(parseDuration('5 s'), null);
  t.equal(formatDuration(5000), '5s');
  t.equal(formatDuration(1500), '1500ms');
});

t.test('the option, its old spelling with a warning, a bare number where it was seconds, bounds', async (t) => {
  const warnings: string[] = [];
  const problem = (message: string): never => {
    throw new Error(message);
  };
  const warn = (message: string) => warnings.push(message);
  const poll = { name: 'poll', oldSpelling: { name: 'poll-ms', unit: 'ms' as const } };
  t.equal(durationOf({ poll: '50ms' }, poll, 1000, problem, warn), 50);
  t.equal(durationOf({}, poll, 1000, problem, warn), 1000);
  t.equal(durationOf({ 'poll-ms': '50' }, poll, 1000, problem, warn), 50);
  t.same(warnings, ['--poll-ms is the old spelling: --poll 50ms']);
  t.throws(() => durationOf({ poll: '50' }, poll, 1000, problem, warn), /--poll takes a duration with its unit/);
  const timeout = { name: 'request-timeout', bareUnit: 's' as const, min: 1, max: 3_600_000 };
  t.equal(durationOf({ 'request-timeout': '10' }, timeout, 10_000, problem, warn), 10_000);
  t.match(warnings.at(-1), '--request-timeout 10: give its unit, --request-timeout 10s');
  t.throws(() => durationOf({ 'request-timeout': '2h' }, timeout, 10_000, problem, warn), /at most 3600s, got 7200s/);
});
