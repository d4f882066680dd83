import { join } from 'node:path';
import t from 'tap';
import { SNAPSHOT_LOOP_SHARE, SnapshotFileAdapter, type SnapshotEntry } from './snapshot-adapter.js';

/** Enough records for several 128 KiB chunks: 3,000 of about 200 characters. */
const entries = (): SnapshotEntry[] =>
  Array.from({ length: 3000 }, (_, i) => ['orders', `o${i}`, { id: `o${i}`, note: 'x'.repeat(180), n: i }]);

t.test(
  'between chunks the writer rests (1 / share - 1) times as long as serialising took, and the file is whole',
  async (t) => {
    const dir = t.testdir();
    const rests: number[] = [];
    // A clock that moves 2 ms each time it is read: every chunk takes 2 ms to serialise.
    let clock = 0;
    const now = () => (clock += 2);
    const adapter = new SnapshotFileAdapter(join(dir, 'snapshot.jsonl'), {
      loopShare: 0.25,
      rest: async (ms) => void rests.push(ms),
      now,
    });
    await adapter.write({ seq: 7, entries: entries() });
    const fullChunks = Math.floor((3000 * (JSON.stringify(entries()[0]).length + 1)) / (128 * 1024));
    t.ok(
      rests.length >= fullChunks - 1 && rests.length <= fullChunks + 1,
      `one rest per full chunk (${rests.length} for about ${fullChunks})`,
    );
    t.same(new Set(rests), new Set([6]), 'each rest three times the 2 ms its chunk took');
    const read = await adapter.read();
    t.equal(read?.seq, 7);
    t.same(read?.entries, entries(), 'every record, in order');
  },
);

t.test('a share of 1 never rests; the default leaves requests three quarters of the loop', async (t) => {
  const dir = t.testdir();
  let rested = 0;
  const adapter = new SnapshotFileAdapter(join(dir, 'snapshot.jsonl'), {
    loopShare: 1,
    rest: async () => void (rested += 1),
  });
  await adapter.write({ seq: 1, entries: entries() });
  t.equal(rested, 0);
  t.equal(SNAPSHOT_LOOP_SHARE, 0.25);
});

t.test('a share outside (0, 1] is refused when the store is built, not when it snapshots', async (t) => {
  for (const loopShare of [0, -1, 1.5, Number.NaN]) {
    t.throws(() => new SnapshotFileAdapter('/nowhere', { loopShare }), RangeError, `share ${loopShare}`);
  }
});
