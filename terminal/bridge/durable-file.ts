import { BridgeError } from '../errors.js';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fsyncDirectory } from '../../contracts/common/fsync.js';
import { bytesWrittenBefore, writeFully } from '../../contracts/common/write-fully.js';

// The bridge's state is a few small files: each written whole to a temp
// file, fsynced, renamed over the old one and the directory fsynced, so a
// kill at any moment leaves the old content or the new, never a mix, and a
// write that returned is on disk.

export async function writeDurably(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.tmp-${process.pid}`;
  const handle = await open(temp, 'w');
  try {
    await handle.writeFile(text); // loops over short writes itself
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined); // never renamed into place; give back its space
    throw error;
  }
  await handle.close();
  await rename(temp, path);
  await fsyncDirectory(dirname(path));
}

/**
 * Appends a whole line or nothing: short writes are looped over, and a line
 * that could not be written whole (a full disk) is cut off again, so the
 * file never ends in half a line that a reader would take for damage.
 */
export async function appendDurably(path: string, line: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const handle = await open(path, 'a');
  try {
    const start = (await handle.stat()).size;
    try {
      await writeFully(handle, Buffer.from(line, 'utf8'));
      await handle.sync();
    } catch (error) {
      if (bytesWrittenBefore(error) > 0 || (await handle.stat()).size > start) {
        await handle
          .truncate(start)
          .then(() => handle.sync())
          .catch(() => undefined);
      }
      throw error;
    }
  } finally {
    await handle.close();
  }
}

export async function removeDurably(path: string): Promise<void> {
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  await fsyncDirectory(dirname(path));
}

/** The file's JSON, or undefined when there is no such file. */
export async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${path} is not readable JSON: ${(error as Error).message}`, { cause: error });
  }
}

/** `work`, with any failure of it made JOURNAL_FAILED, naming the file (its first argument). */
function journaled<A extends [string, ...unknown[]], R>(work: (...args: A) => Promise<R>) {
  return async (...args: A): Promise<R> => {
    try {
      return await work(...args);
    } catch (error) {
      throw new BridgeError('JOURNAL_FAILED', `the journal file ${args[0]} failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
  };
}

/**
 * The four, for the bridge's journal and state. A failure of any is
 * JOURNAL_FAILED: the bridge cannot know what it has done, so it stops
 * (exit 1) rather than go on guessing about money.
 */
export const journalFiles = {
  writeDurably: journaled(writeDurably),
  appendDurably: journaled(appendDurably),
  removeDurably: journaled(removeDurably),
  readJson: <T>(path: string): Promise<T | undefined> => journaled(readJson<T>)(path),
};
