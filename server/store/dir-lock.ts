import { createHash } from 'node:crypto';
import { open, readFile, realpath, unlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { StoreLockedError } from '../errors.js';

export interface DirectoryLock {
  release(): Promise<void>;
}

/**
 * Takes an exclusive lock on a data directory for this process.
 *
 * On Linux the lock is a listening socket in the abstract namespace named
 * after the directory's real path: binding is atomic, a second binder gets
 * EADDRINUSE, and the kernel frees the name when the process dies, even by
 * SIGKILL, so a crash never leaves a stale lock. Elsewhere a pid file
 * created exclusively is used, taken over only when its process is gone.
 */
export async function lockDirectory(dir: string): Promise<DirectoryLock> {
  const real = await realpath(dir);
  return process.platform === 'linux' ? lockWithAbstractSocket(real) : lockWithPidFile(real);
}

async function lockWithAbstractSocket(dir: string): Promise<DirectoryLock> {
  const name = `\0svc-pos-sim-lock-${createHash('sha256').update(dir).digest('hex').slice(0, 40)}`;
  const server: Server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new StoreLockedError(dir) : error),
    );
    server.listen({ path: name, exclusive: true }, resolve);
  });
  server.unref();
  return { release: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function lockWithPidFile(dir: string): Promise<DirectoryLock> {
  const path = join(dir, 'LOCK');
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return { release: () => unlink(path).catch(() => undefined) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(await readFile(path, 'utf8').catch(() => ''));
      if (holder && isAlive(holder)) throw new StoreLockedError(dir);
      await unlink(path).catch(() => undefined);
    }
  }
  throw new StoreLockedError(dir);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
