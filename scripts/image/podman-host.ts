import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

// What the image tier needs of the host: its tools, their storage, the CA
// bundle a build behind a proxy needs, and a free port.

export const run = promisify(execFile);
export const IMAGE = 'localhost/svc-pos-sim:ci';

/**
 * The CA bundle the host trusts, handed to the build as a secret: npm's cafile, else Node's extra CAs, else the
 * system's. Where a TLS-intercepting proxy is in the way npm needs it inside the build; where none is, it is
 * harmless (the system's own roots).
 */
export function caBundle(): string | undefined {
  const npmCafile = spawnSync('npm', ['config', 'get', 'cafile'], { encoding: 'utf8' }).stdout.trim();
  return [npmCafile, process.env.NODE_EXTRA_CA_CERTS, process.env.SSL_CERT_FILE, '/etc/ssl/certs/ca-certificates.crt']
    .filter((path): path is string => Boolean(path) && path !== 'null' && path !== 'undefined')
    .find((path) => existsSync(path) && statSync(path).size > 0);
}

/**
 * podman's storage, checked before anything is built. Where overlay cannot be mounted (a machine whose own root
 * is an overlay, as in a container), podman and buildah get a storage.conf of their own (CONTAINERS_STORAGE_CONF,
 * which both read) with the vfs driver, slower but possible everywhere, in a store apart from the overlay one (a
 * store keeps the driver it was made with). SVC_IMAGE_STORAGE=vfs asks for it directly.
 */
export function storageDriver(): string {
  const info = () => spawnSync('podman', ['info', '--format', '{{.Store.GraphDriverName}}'], { encoding: 'utf8' });
  const forced = process.env.SVC_IMAGE_STORAGE === 'vfs';
  const first = forced ? undefined : info();
  if (first?.status === 0) return first.stdout.trim();
  const home = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'svc-pos-sim', 'vfs-storage');
  mkdirSync(home, { recursive: true });
  const conf = join(home, 'storage.conf');
  writeFileSync(
    conf,
    `[storage]\ndriver = "vfs"\nrunroot = "${join(home, 'run')}"\ngraphroot = "${join(home, 'graph')}"\n`,
  );
  process.env.CONTAINERS_STORAGE_CONF = conf;
  const second = info();
  const why = first ? `overlay refused: ${first.stderr.trim().slice(-300)}` : 'SVC_IMAGE_STORAGE=vfs';
  if (second.status === 0) return `${second.stdout.trim()} (${why})`;
  throw new Error(`podman cannot open its storage (${why}):\n${second.stderr}`);
}

/** A command of the tier; when it fails, the error says which and ends with what it printed last. */
export async function step(what: string, tool: string, args: string[]) {
  try {
    return await run(tool, args, { maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    const printed = `${failed.stdout ?? ''}${failed.stderr ?? ''}`.trim().split('\n').slice(-40).join('\n');
    throw new Error(
      `${what} failed (${tool} ${args.slice(0, 3).join(' ')} ...): ${failed.message.split('\n')[0]}\n${printed}`,
      { cause: error },
    );
  }
}

export const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
