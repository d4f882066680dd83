import { open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { journalFileName } from '../../server/store/embedded/journal-files.js';
import { JournalWriter, type JournalHandle } from '../../server/store/embedded/journal-writer.js';
import { bytesWrittenBefore, writeFully, writeFullySync, type WritableHandle } from './write-fully.js';

/**
 * A real file on a disk that holds `capacity` bytes: each write takes at most
 * `chunk` bytes, a write that meets the limit is short without an error, and
 * the next one fails with ENOSPC, as Linux does when a disk fills mid-write.
 */
async function smallDisk(
  path: string,
  capacity: number,
  chunk = 7,
): Promise<JournalHandle & { readonly size: number }> {
  const file = await open(path, 'a');
  let size = (await file.stat()).size;
  return {
    get size() {
      return size;
    },
    async write(buffer: Uint8Array, offset = 0, length = buffer.length - offset) {
      const room = capacity - size;
      if (room <= 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      const take = Math.min(length, chunk, room);
      const { bytesWritten } = await file.write(buffer, offset, take);
      size += bytesWritten;
      return { bytesWritten, buffer };
    },
    datasync: () => file.datasync(),
    async truncate(length?: number) {
      await file.truncate(length);
      size = length ?? 0;
    },
    close: () => file.close(),
  } as JournalHandle & { readonly size: number };
}

t.test('writeFully loops over short writes until every byte is written', async (t) => {
  const dir = t.testdir();
  const disk = await smallDisk(join(dir, 'f'), 1000, 3);
  const data = Buffer.from('every byte of this line arrives\n');
  await writeFully(disk as unknown as WritableHandle, data);
  await disk.close();
  t.equal(await readFile(join(dir, 'f'), 'utf8'), data.toString());
});

t.test('writeFully rejects with the error of the write that failed, saying how much reached the file', async (t) => {
  const dir = t.testdir();
  const disk = await smallDisk(join(dir, 'f'), 10, 4);
  const error = await writeFully(disk as unknown as WritableHandle, Buffer.alloc(25, 0x61)).catch((e: Error) => e);
  t.match(error, { code: 'ENOSPC' });
  t.equal(bytesWrittenBefore(error), 10, 'ten bytes fitted before the disk refused');
  await disk.close();
});

t.test('a write that makes no progress is an error, not an endless loop', async (t) => {
  const stuck: WritableHandle = { write: async () => ({ bytesWritten: 0 }) };
  await t.rejects(writeFully(stuck, Buffer.from('abc')), { code: 'ENOSPC', message: /nothing more/ });
  t.throws(() => writeFullySync(3, Buffer.from('abc'), () => 0), { code: 'ENOSPC', message: /nothing more/ });
  const pieces: number[] = [];
  writeFullySync(3, Buffer.from('abcdefg'), (_fd, _b, _o, length) => {
    const n = Math.min(2, length as number);
    pieces.push(n);
    return n;
  });
  t.same(pieces, [2, 2, 2, 1], 'the sync loop also writes the rest after a short write');
});

t.test('a journal batch cut short by a full disk is never acknowledged and leaves nothing in the file', async (t) => {
  const dir = t.testdir();
  const line = (seq: number) => `{"seq":${seq},"pad":"${'x'.repeat(40)}"}\n`;
  let disk: Awaited<ReturnType<typeof smallDisk>> | undefined;
  const capacity = line(1).length * 3 + 10; // three lines and part of a fourth fit
  const writer = await JournalWriter.open(dir, 1, undefined, async (path) => (disk = await smallDisk(path, capacity)));
  for (const seq of [1, 2, 3]) await writer.append(seq, line(seq));
  const fourth = writer.append(4, line(4));
  const fifth = writer.append(5, line(5));
  await t.rejects(fourth, { code: 'STORE_UNAVAILABLE' }, 'the batch that did not fit is refused');
  await t.rejects(fifth, { code: 'STORE_UNAVAILABLE' });
  t.equal(writer.durableSeq, 3, 'only the three whole lines were acknowledged');
  t.match(writer.failed?.message, /ENOSPC.*cut off the journal/);
  await writer.close();
  const text = await readFile(join(dir, journalFileName(1)), 'utf8');
  t.equal(
    text,
    line(1) + line(2) + line(3),
    'the partial line is cut off: the file ends with the last acknowledged line',
  );
  t.equal((await stat(join(dir, journalFileName(1)))).size, disk!.size);
});

t.test('a batch that filled the disk exactly but could not be synced is cut off too', async (t) => {
  const dir = t.testdir();
  const writer = await JournalWriter.open(dir, 1, undefined, async (path) => {
    const handle = await smallDisk(path, 1 << 20);
    return {
      ...handle,
      write: handle.write,
      truncate: handle.truncate,
      close: handle.close,
      datasync: async () => Promise.reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })),
    };
  });
  await t.rejects(writer.append(1, '{"seq":1}\n'), { code: 'STORE_UNAVAILABLE' });
  await writer.close();
  t.equal(await readFile(join(dir, journalFileName(1)), 'utf8'), '');
});

t.test('how much a failed write left in the file: what it says, or 0 when it says nothing', async (t) => {
  t.equal(bytesWrittenBefore(Object.assign(new Error('ENOSPC'), { written: 12 })), 12);
  t.equal(bytesWrittenBefore(new Error('EIO')), 0);
  t.equal(
    bytesWrittenBefore(Object.assign(new Error('odd'), { written: '12' })),
    0,
    'a count that is not a number is not taken',
  );
  t.equal(bytesWrittenBefore(null), 0);
  t.equal(bytesWrittenBefore(undefined), 0);
});
