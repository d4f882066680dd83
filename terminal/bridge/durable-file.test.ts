import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { mountSmallDisk, smallDiskSkip } from '../../server/testing/small-disk.js';
import { appendDurably, journalFiles, writeDurably } from './durable-file.js';

// The bridge's files on a disk that fills: a line is appended whole or not
// at all, and a file rewritten whole keeps its old content when the new one
// does not fit.

const skip = smallDiskSkip();

t.test(
  'on a full disk an append fails and leaves no half line; a rewrite fails and leaves the old content',
  { skip },
  async (t) => {
    const disk = mountSmallDisk(64 * 1024);
    t.teardown(() => disk.remove());
    const log = join(disk.path, 'released.jsonl');
    const state = join(disk.path, 'asked.json');
    await writeDurably(state, '{"before":true}');
    await appendDurably(log, '{"n":0}\n');
    // Fill what is left, so the next write is cut short.
    await writeFile(join(disk.path, 'filler'), Buffer.alloc(64 * 1024)).catch(() => undefined);

    const line = `${JSON.stringify({ n: 1, pad: 'x'.repeat(8192) })}\n`;
    await t.rejects(appendDurably(log, line), { code: 'ENOSPC' });
    t.equal(await readFile(log, 'utf8'), '{"n":0}\n', 'the log ends with its last whole line');
    await t.rejects(writeDurably(state, JSON.stringify({ after: 'y'.repeat(16384) })), { code: 'ENOSPC' });
    t.equal(await readFile(state, 'utf8'), '{"before":true}', 'the state file keeps its old content');
    t.same(
      (await readdir(disk.path)).filter((name) => name.includes('.tmp-')),
      [],
      'no temp file left taking space',
    );
  },
);

t.test("the journal's files: any failure is JOURNAL_FAILED, naming the file and keeping the cause", async (t) => {
  const dir = t.testdir({ 'state.json': { 'in-the-way': 'a directory where a file belongs' } });
  const path = join(dir, 'state.json');
  await t.rejects(journalFiles.writeDurably(path, '{}'), {
    name: 'BridgeError',
    code: 'JOURNAL_FAILED',
    message: new RegExp(`^the journal file ${path} failed: `),
  });
  await t.rejects(journalFiles.appendDurably(path, 'x\n'), { code: 'JOURNAL_FAILED', cause: { code: 'EISDIR' } });
  await t.rejects(journalFiles.readJson(path), { code: 'JOURNAL_FAILED' });
  t.equal(await journalFiles.readJson(join(dir, 'absent.json')), undefined, 'no file is no journal yet, not a failure');
  await journalFiles.writeDurably(join(dir, 'ok.json'), '{"a":1}');
  t.same(await journalFiles.readJson(join(dir, 'ok.json')), { a: 1 });
});
