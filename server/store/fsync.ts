import { open } from 'node:fs/promises';

/** Makes a directory's entries (created, renamed, removed files) durable. */
export async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
