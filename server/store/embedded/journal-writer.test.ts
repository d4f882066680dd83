import { existsSync } from 'node:fs';
import { readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { journalFileName } from './journal-files.js';
import { JournalWriter } from './journal-writer.js';

const line = (seq: number) => `{"seq":${seq}}\n`;

t.test('concurrent appends resolve in order and land in the file in order', async (t) => {
  const dir = t.testdir();
  const writer = await JournalWriter.open(dir, 1);
  const resolved: number[] = [];
  await Promise.all(
    Array.from({ length: 200 }, (_, i) => writer.append(i + 1, line(i + 1)).then(() => resolved.push(i + 1))),
  );
  t.same(
    resolved,
    Array.from({ length: 200 }, (_, i) => i + 1),
    'each append resolves after every earlier one',
  );
  t.equal(writer.durableSeq, 200);
  t.equal(
    await readFile(join(dir, journalFileName(1)), 'utf8'),
    Array.from({ length: 200 }, (_, i) => line(i + 1)).join(''),
  );
  await writer.close();
});

t.test('after a rotation, entries go to the new file; the old one holds everything before it', async (t) => {
  const dir = t.testdir();
  const writer = await JournalWriter.open(dir, 1);
  const before = [1, 2, 3].map((seq) => writer.append(seq, line(seq)));
  const rotated = writer.rotate(4);
  const after = writer.append(4, line(4));
  await Promise.all([...before, rotated, after]);
  t.equal(await readFile(join(dir, journalFileName(1)), 'utf8'), line(1) + line(2) + line(3));
  t.equal(await readFile(join(dir, journalFileName(4)), 'utf8'), line(4));
  t.equal(writer.bytesSinceRotation, line(4).length);
  await writer.close();
});

t.test(
  'a failed write is never acknowledged, and the journal refuses everything after it',
  { skip: existsSync('/dev/full') ? false : 'needs /dev/full' },
  async (t) => {
    const dir = t.testdir();
    // Writing to /dev/full fails with ENOSPC, as a full disk would.
    await symlink('/dev/full', join(dir, journalFileName(1)));
    const writer = await JournalWriter.open(dir, 1);
    const first = writer.append(1, line(1));
    const second = writer.append(2, line(2));
    await t.rejects(first, { code: 'STORE_UNAVAILABLE' }, 'the entry whose write failed');
    await t.rejects(second, { code: 'STORE_UNAVAILABLE' }, 'an entry queued behind it');
    await t.rejects(writer.append(3, line(3)), { code: 'STORE_UNAVAILABLE' }, 'an entry after the failure');
    await t.rejects(writer.waitDurable(1), { code: 'STORE_UNAVAILABLE' }, 'a reader waiting for the failed entry');
    t.match(writer.failed?.message, /ENOSPC/);
    t.equal(writer.durableSeq, 0, 'nothing became durable');
    await writer.close();
  },
);
