import t from 'tap';
import { lastOccurrence, missedClose, nextOccurrence } from './close-schedule.js';

// Local time: the host's zone. The instants are built the same way, so the test holds in any zone.
const local = (day: number, hours: number, minutes: number, seconds = 0) =>
  new Date(2026, 10, day, hours, minutes, seconds).getTime();
const at2300 = { hours: 23, minutes: 0 };

t.test("the next close is later today, or tomorrow once today's has come", async (t) => {
  t.equal(nextOccurrence(at2300, local(24, 22, 59)), local(24, 23, 0));
  t.equal(nextOccurrence(at2300, local(24, 23, 0)), local(25, 23, 0), "at the minute itself: the next day's");
  t.equal(nextOccurrence(at2300, local(24, 23, 1)), local(25, 23, 0));
});

t.test("the last close came earlier today, or yesterday before today's time", async (t) => {
  t.equal(lastOccurrence(at2300, local(24, 23, 0)), local(24, 23, 0), "at the minute itself: today's");
  t.equal(lastOccurrence(at2300, local(24, 23, 30)), local(24, 23, 0));
  t.equal(lastOccurrence(at2300, local(24, 22, 59)), local(23, 23, 0));
});

t.test(
  'a close is made up when the last one asked came before the last due time; never on a first start',
  async (t) => {
    const now = local(25, 9, 0);
    t.equal(
      missedClose(at2300, new Date(local(23, 23, 0, 1)).toISOString(), now),
      true,
      'the bridge was down at 23:00 yesterday',
    );
    t.equal(missedClose(at2300, new Date(local(24, 23, 0)).toISOString(), now), false, 'closed at 23:00 yesterday');
    t.equal(missedClose(at2300, new Date(local(24, 23, 5)).toISOString(), now), false, 'closed a little after');
    t.equal(
      missedClose(at2300, new Date(local(24, 22, 0)).toISOString(), now),
      true,
      'closed by hand at 22:00, then down at 23:00',
    );
    t.equal(missedClose(at2300, undefined, now), false);
  },
);
