import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startServerProcess, stopServerProcess, type ServerProcess } from '../../testing/server-process.js';
import { lockDirectory } from './dir-lock.js';

// One server per data directory, whatever the path that names it: the lock
// is on a file inside the directory, so every way of reaching the same
// directory meets it.

const permitted = (command: string[]) => spawnSync(command[0]!, command.slice(1), { stdio: 'ignore' }).status === 0;
const bindSkip = process.platform !== 'linux' || process.getuid?.() !== 0 ? 'bind mounts need root on Linux' : false;
const unshareSkip =
  process.platform !== 'linux' || !permitted(['unshare', '-n', 'true']) ? 'unshare -n is not permitted here' : false;

const refusal = (started: Promise<ServerProcess>) =>
  started.then(
    async (server) => {
      await stopServerProcess(server);
      return null;
    },
    (error: { code: number; stderr: string }) => error,
  );

t.test(
  'in one process: a second lock on the directory, through a symlink, is refused until the first is released',
  async (t) => {
    const dir = join(t.testdir({ data: {} }), 'data');
    const link = join(t.testdirName, 'link');
    symlinkSync(dir, link);
    const first = await lockDirectory(dir);
    await t.rejects(lockDirectory(link), { code: 'STORE_LOCKED' });
    await first.release();
    const again = await lockDirectory(link);
    await again.release();
  },
);

t.test('a second server through a bind mount of the same directory refuses to start', { skip: bindSkip }, async (t) => {
  // Not under t.testdir: its removal would meet the mount.
  const dir = mkdtempSync(join(tmpdir(), 'svc-bind-'));
  const data = join(dir, 'data');
  const mounted = join(dir, 'mounted');
  mkdirSync(data);
  mkdirSync(mounted);
  if (!permitted(['mount', '--bind', data, mounted])) {
    rmSync(dir, { recursive: true, force: true });
    t.comment('mount --bind is not permitted here');
    return;
  }
  try {
    const first = await startServerProcess({ DATA_DIR: data });
    try {
      const error = await refusal(startServerProcess({ DATA_DIR: mounted }));
      t.ok(error, 'the second server did not start');
      t.equal(error?.code, 1);
      t.match(error?.stderr, /data directory .* is in use by another server process/);
    } finally {
      await stopServerProcess(first);
    }
  } finally {
    spawnSync('umount', [mounted]);
    rmSync(dir, { recursive: true, force: true });
  }
});

t.test('a second server in another network namespace refuses to start', { skip: unshareSkip }, async (t) => {
  const data = t.testdir();
  mkdirSync(data, { recursive: true });
  const first = await startServerProcess({ DATA_DIR: data });
  t.teardown(() => stopServerProcess(first));
  // Listening on 0.0.0.0: the new namespace's loopback is down, and the lock comes first anyway.
  const error = await refusal(startServerProcess({ DATA_DIR: data, HOST: '0.0.0.0' }, ['unshare', '-n']));
  t.ok(error, 'the second server did not start');
  t.equal(error?.code, 1);
  t.match(error?.stderr, /data directory .* is in use by another server process/);
});

t.test('the kernel releases the lock of a server killed with SIGKILL', async (t) => {
  const data = t.testdir();
  const first = await startServerProcess({ DATA_DIR: data });
  first.child.kill('SIGKILL');
  await stopServerProcess(first);
  const second = await startServerProcess({ DATA_DIR: data });
  await stopServerProcess(second);
  t.pass('a new server took the directory');
});
