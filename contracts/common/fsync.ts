import { open } from 'node:fs/promises';

/** Makes a file's contents, or a directory's entries (created, renamed, removed files), durable. */
export async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export const fsyncDirectory = fsyncPath;
export const fsyncFile = fsyncPath;

/** Cuts a file to `length` bytes and makes the cut durable. */
export async function truncateDurably(path: string, length: number): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.truncate(length);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
