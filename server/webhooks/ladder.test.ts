import { mock } from 'node:test';
import t from 'tap';
import { afterAttempt, ATTEMPT_TIMEOUT_MS, delayBefore, exhausted, ladders, withAttemptLimit } from './ladder.js';

// The retry ladders of INTERFACE.md §7, as a receiver sees them: how long after
// the previous attempt each attempt comes, and what a delivery becomes once
// the last one failed.

t.test('the sim ladder: at once, then 2 s, then 5 s; given up after the third attempt', async (t) => {
  t.same(
    [1, 2, 3, 4].map((attempt) => delayBefore('sim', attempt)),
    [0, 2000, 5000, null],
  );
  t.equal(exhausted.sim, 'gave_up');
});

t.test(
  'the production ladder: at once, then 1, 5, 15 and 60 minutes; undelivered after the fifth attempt',
  async (t) => {
    t.same(
      [1, 2, 3, 4, 5, 6].map((attempt) => delayBefore('production', attempt)),
      [0, 60_000, 300_000, 900_000, 3_600_000, null],
    );
    t.equal(exhausted.production, 'undelivered');
    t.equal(ladders.production.length, 5);
    t.equal(delayBefore('production', 0), null, 'attempts count from 1');
  },
);

t.test(
  'an attempt is limited to 5 s: unanswered, its signal fires with a timeout that says so; answered, no limit is left behind',
  async (t) => {
    t.equal(ATTEMPT_TIMEOUT_MS, 5000);
    mock.timers.enable({ apis: ['setTimeout'] });
    t.teardown(() => mock.timers.reset());

    let seen: AbortSignal | undefined;
    const unanswered = withAttemptLimit(
      (signal) =>
        new Promise<string>((_resolve, reject) => {
          seen = signal;
          signal.addEventListener('abort', () => reject(signal.reason));
        }),
    );
    mock.timers.tick(4999);
    t.equal(seen!.aborted, false, 'not before 5 s');
    mock.timers.tick(1);
    await t.rejects(unanswered, { name: 'TimeoutError', message: 'no answer within 5000 ms' });

    let answeredSignal: AbortSignal | undefined;
    t.equal(
      await withAttemptLimit(async (signal) => {
        answeredSignal = signal;
        return 'answered';
      }),
      'answered',
    );
    mock.timers.tick(10_000);
    t.equal(answeredSignal!.aborted, false, 'the limit of an answered attempt never fires');

    let failedSignal: AbortSignal | undefined;
    await t.rejects(
      withAttemptLimit(async (signal) => {
        failedSignal = signal;
        throw new Error('connection refused');
      }),
      { message: 'connection refused' },
    );
    mock.timers.tick(10_000);
    t.equal(failedSignal!.aborted, false, 'nor that of an attempt that failed');
  },
);

t.test('a test can hand in its own limit: it is asked for 5000 ms and used as is', async (t) => {
  const asked: number[] = [];
  const controller = new AbortController();
  const result = await withAttemptLimit(
    async (signal) => signal,
    (ms) => {
      asked.push(ms);
      return controller.signal;
    },
  );
  t.equal(result, controller.signal);
  t.same(asked, [5000]);
});

t.test('after an attempt, the ladder closes, gives up, reschedules or leaves the delivery as it is', async (t) => {
  const facts = {
    delivered: false,
    pending: true,
    manual: false,
    closedAs: 'gave_up' as const,
    routed: true,
    ladder: 'sim' as const,
    attempt: 1,
  };
  t.same(
    afterAttempt({ ...facts, delivered: true }),
    { action: 'close', as: 'delivered', closesPending: true },
    "a 2xx closes it, and its session's next event becomes due",
  );
  t.same(
    afterAttempt({ ...facts, delivered: true, pending: false, manual: true }),
    { action: 'close', as: 'delivered', closesPending: false },
    'a resend after it closed that gets a 2xx records it delivered',
  );
  t.same(
    afterAttempt({ ...facts, pending: false, manual: true }),
    { action: 'close', as: 'gave_up', closesPending: false },
    'one that fails keeps how it closed, counted',
  );
  t.same(
    afterAttempt({ ...facts, manual: true }),
    { action: 'none' },
    'a manual resend that fails does not move the ladder',
  );
  t.same(afterAttempt(facts), { action: 'reschedule', inMs: 2000 }, 'the first failure: the second step');
  t.same(afterAttempt({ ...facts, attempt: 2 }), { action: 'reschedule', inMs: 5000 });
  t.same(
    afterAttempt({ ...facts, attempt: 3 }),
    { action: 'give-up', as: 'gave_up' },
    'the third failure on the sim ladder: given up',
  );
  t.same(afterAttempt({ ...facts, ladder: 'production', attempt: 4 }), { action: 'reschedule', inMs: 3_600_000 });
  t.same(
    afterAttempt({ ...facts, ladder: 'production', attempt: 5 }),
    { action: 'give-up', as: 'undelivered' },
    'the fifth on the production ladder: undelivered',
  );
  t.same(
    afterAttempt({ ...facts, routed: false }),
    { action: 'give-up', as: 'gave_up' },
    'nowhere to send it: the ladder ends at once',
  );
});
