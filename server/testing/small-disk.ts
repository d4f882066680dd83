import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A tmpfs of a set size that a test fills, grows and removes (Linux, as root). */
export interface SmallDisk {
  path: string;
  grow(bytes: number): void;
  remove(): void;
}

/** Why a small disk cannot be mounted here, or false when it can (tried once). */
export function smallDiskSkip(): string | false {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return 'mounting a small tmpfs needs root on Linux';
  const probe = mkdtempSync(join(tmpdir(), 'svc-disk-probe-'));
  const mounted =
    spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'ignore' }).status === 0;
  if (mounted) spawnSync('umount', [probe]);
  rmSync(probe, { recursive: true, force: true });
  return mounted ? false : 'mounting a tmpfs is not permitted here';
}

export function mountSmallDisk(bytes: number): SmallDisk {
  const path = mkdtempSync(join(tmpdir(), 'svc-disk-'));
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', path], { encoding: 'utf8' });
  if (mount.status !== 0) throw new Error(`mount tmpfs: ${mount.stderr}`);
  let removed = false;
  return {
    path,
    grow(size) {
      const remount = spawnSync('mount', ['-o', `remount,size=${size}`, path], { encoding: 'utf8' });
      if (remount.status !== 0) throw new Error(`remount tmpfs: ${remount.stderr}`);
    },
    remove() {
      if (removed) return;
      removed = true;
      spawnSync('umount', ['--lazy', path]); // lazy: a store a failed test left open must not keep the mount
      rmSync(path, { recursive: true, force: true });
    },
  };
}
