import { closeSync, openSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { tryLock, unlock } from 'fs-native-extensions';
import { appError } from '../../errors.js';

export interface DirectoryLock {
  release(): Promise<void>;
}

/** The file inside a data directory whose lock says a server owns the directory. */
export const LOCK_FILE = 'LOCK';

/**
 * Takes an exclusive lock on a data directory for this process.
 *
 * The lock is an OS lock on a file inside the directory (an open-file-
 * description lock, fcntl F_OFD_SETLK, on Linux; flock on macOS;
 * LockFileEx on Windows), through fs-native-extensions, since Node has no
 * file lock of its own. It belongs to the file, not to a name: a bind mount,
 * a symlink or another path to the same directory, and a server in another
 * network or mount namespace (two containers sharing a volume) all meet the
 * same lock. The kernel drops it when the process dies, even by SIGKILL, so a
 * crash never leaves a stale lock, and the file itself holds nothing. Not
 * covered: network file systems, where such locks are only as good as the
 * server's lock manager (NFS) or absent.
 */
export async function lockDirectory(dir: string): Promise<DirectoryLock> {
  const real = await realpath(dir);
  const fd = openSync(join(real, LOCK_FILE), 'a+');
  let granted: boolean;
  try {
    granted = tryLock(fd);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  if (!granted) {
    closeSync(fd);
    throw appError('STORE_LOCKED', real);
  }
  let held = true;
  return {
    release: async () => {
      if (!held) return;
      held = false;
      unlock(fd);
      closeSync(fd);
    },
  };
}
