import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFullySync } from '../../contracts/common/write-fully.js';

// An emulated device's memory on disk, as a real terminal keeps one in
// flash: the whole state, written before the device answers on the line.

/** Whole file to a temp file, fsynced, renamed over the journal: a kill leaves the old state or the new. */
export function writeJournalSync(path: string, state: unknown): void {
  const temp = `${path}.tmp-${process.pid}`;
  const fd = openSync(temp, 'w');
  try {
    writeFullySync(fd, Buffer.from(JSON.stringify(state), 'utf8'));
    fsyncSync(fd);
  } catch (error) {
    // Never renamed into place: the journal keeps the state before.
    closeSync(fd);
    unlinkSync(temp);
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/** The journal's state, or undefined when there is none yet. */
export function readJournalSync<T>(path: string): T | undefined {
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}
