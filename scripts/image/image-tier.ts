import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';

// The image tier (npm run test:image, which .ci/run runs after the suite):
// the Dockerfile built with podman on the node:24-bookworm-slim base (a
// local stand-in where no registry can be reached: stand-in-base.sh), and
// the image run as a user runs it, with buildah (podman run is refused by
// this machine's cgroup layout; buildah run with chroot isolation runs the
// image's filesystem on the host's network): what the runtime stage holds,
// /health, a write that survives a new container on the same /data, a clean
// stop on SIGTERM, and svc-contracts by name inside the image against the
// server in it. Without podman (a developer's machine) the tier is skipped
// with the reason; under CI=true it must run.

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const IMAGE = 'localhost/svc-pos-sim:ci';
const has = (tool: string) => spawnSync(tool, ['--version']).status === 0;
const missing = ['podman', 'buildah'].filter((tool) => !has(tool));
const skip =
  missing.length > 0 && process.env.CI !== 'true'
    ? `${missing.join(' and ')} not installed (Debian's podman and buildah packages; .ci/run installs them)`
    : false;

t.setTimeout(900_000);

/**
 * The CA bundle the host trusts, handed to the build as a secret: npm's cafile, else Node's extra CAs, else the
 * system's. Where a TLS-intercepting proxy is in the way npm needs it inside the build; where none is, it is
 * harmless (the system's own roots).
 */
function caBundle(): string | undefined {
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
function storageDriver(): string {
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
async function step(what: string, tool: string, args: string[]) {
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

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

/** The image's default command, as the image declares it (what docker run runs). */
async function defaultCommand(): Promise<string[]> {
  const { stdout } = await run('podman', ['image', 'inspect', '--format', '{{json .Config.Cmd}}', IMAGE]);
  return JSON.parse(stdout) as string[];
}

/** A container of the image with `dataDir` as its /data, its default command running; stopped as docker stop does. */
async function container(dataDir: string, port: number) {
  const { stdout } = await run('buildah', ['from', '--quiet', IMAGE]);
  const name = stdout.trim();
  // buildah 1.28 mounts its own volume over a declared VOLUME: undeclared, the bind mount takes effect.
  await run('buildah', ['config', '--volume', '/data-', name]);
  const child: ChildProcess = spawn(
    'buildah',
    [
      'run',
      '--isolation',
      'chroot',
      '-e',
      `PORT=${port}`,
      '-v',
      `${dataDir}:/data`,
      name,
      '--',
      ...(await defaultCommand()),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries += 1) {
    if (
      await fetch(`${base}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (tries > 300 || child.exitCode !== null) throw new Error(`the container did not serve /health:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    name,
    base,
    output: () => output,
    exec: (...command: string[]) =>
      run('buildah', ['run', '--isolation', 'chroot', name, '--', ...command], { maxBuffer: 16 * 1024 * 1024 }),
    /** SIGTERM to the container's process (what docker stop sends); its exit code. */
    stop: async () => {
      const server = serverProcess(child.pid!);
      if (server === undefined) throw new Error('no server process in the container');
      process.kill(server, 'SIGTERM');
      const code = await exited;
      await run('buildah', ['rm', name]);
      return code;
    },
  };
}

/** The container's server: the node process under buildah's, found through /proc. */
function serverProcess(ancestor: number): number | undefined {
  const parentOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    const pid = Number(entry);
    let command: string;
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!command.includes('/app/dist/server/main.js') || command.startsWith('buildah')) continue;
    for (let up = pid, hops = 0; up > 1 && hops < 10; up = parentOf(up), hops += 1) if (up === ancestor) return pid;
  }
  return undefined;
}

t.test('the image: built with podman, run with buildah as a user runs it', { skip }, async (t) => {
  t.comment(`podman storage: ${storageDriver()}`);
  const started = Date.now();
  await step('the stand-in base', 'bash', [join(root, 'scripts/image/stand-in-base.sh')]);
  t.comment(`base ready in ${Math.round((Date.now() - started) / 1000)} s`);
  const ca = caBundle();
  t.comment(`CA bundle handed to the build: ${ca ?? 'none'}`);
  const building = Date.now();
  await step('the image build', 'podman', [
    'build',
    '--isolation',
    'chroot',
    '--format',
    'docker',
    ...(ca ? ['--secret', `id=ca,src=${ca}`] : []),
    '-t',
    IMAGE,
    root,
  ]);
  t.comment(`image built in ${Math.round((Date.now() - building) / 1000)} s`);
  const { stdout: healthcheck } = await run('podman', [
    'image',
    'inspect',
    '--format',
    '{{json .Config.Healthcheck}}',
    IMAGE,
  ]);
  t.match(healthcheck, /\/health/, 'the HEALTHCHECK is kept (docker format)');

  // The same Dockerfile without the CA secret: the mount is optional, so the build runs npm as it is. Without
  // a TLS-intercepting proxy it builds; behind one (whose CA only the secret brings) npm fails on the
  // certificate. Either way the RUN ran: a required mount would stop the step before any command.
  const bare = await run(
    'podman',
    [
      'build',
      '--no-cache',
      '--isolation',
      'chroot',
      '--format',
      'docker',
      '--target',
      'build',
      '--env',
      'npm_config_fetch_retries=0',
      root,
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  ).then(
    () => ({ ok: true, output: '' }),
    (error: { stdout?: string; stderr?: string }) => ({
      ok: false,
      output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
    }),
  );
  if (bare.ok) t.pass('without the secret, and no proxy in the way: it builds');
  else
    t.match(
      bare.output,
      /npm (ERR|error)[\s\S]*(certificate|CERT|SSL|issuer)/i,
      "without the secret the step ran, and stopped on npm's certificate error (a proxy's CA it lacks)",
      { output: bare.output.slice(-1500) },
    );

  const dataDir = mkdtempSync(join(tmpdir(), 'image-data-'));
  // A volume the image's user (node, uid 1000) owns, as docker makes one.
  chownSync(dataDir, 1000, 1000);
  const first = await container(dataDir, await freePort());
  t.teardown(() => run('buildah', ['rm', '--all']).catch(() => undefined));

  const devDependencies = Object.keys(
    (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> })
      .devDependencies,
  );
  // Every package installed at the top of /app/node_modules, scoped ones by their whole name.
  const { stdout: modules } = await first.exec(
    'node',
    '-e',
    "const fs = require('fs'); const top = fs.readdirSync('/app/node_modules').filter((n) => !n.startsWith('.')); console.log(top.flatMap((n) => n.startsWith('@') ? fs.readdirSync('/app/node_modules/' + n).map((m) => n + '/' + m) : [n]).join('\\n'))",
  );
  const installed = new Set(modules.split('\n'));
  t.ok(installed.has('koa') && installed.has('node-forge'), 'the production dependencies are there');
  t.same(
    devDependencies.filter((name) => installed.has(name)),
    [],
    'no devDependency in the runtime stage',
  );
  const { stdout: sources } = await first.exec(
    'sh',
    '-c',
    "find /app -path /app/node_modules -prune -o \\( -name '*.test.*' -o -name '*-testkit.*' -o \\( -name '*.ts' ! -name '*.d.ts' \\) \\) -print",
  );
  t.equal(sources.trim(), '', 'no test file and no source in the runtime stage');
  const { stdout: user } = await first.exec('id', '-un');
  t.equal(user.trim(), 'node', 'not root');

  const health = (await (await fetch(`${first.base}/health`)).json()) as { status: string };
  t.equal(health.status, 'ok', '/health');
  const register = (await (
    await fetch(`${first.base}/console/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'image@example.com', password: 'image password' }),
    })
  ).json()) as { merchant_id: string; key: { token: string } };
  const merchant = `${first.base}/api/v1/merchants/${register.merchant_id}`;
  const auth = { authorization: `Bearer ${register.key.token}`, 'content-type': 'application/json' };
  await fetch(`${merchant}/pos-terminals`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ serialNumber: 'IMG-1' }),
  });
  const created = (await (
    await fetch(`${merchant}/transactions`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ terminal: 'IMG-1', amount: 1234, currency: 'USD' }),
    })
  ).json()) as { data: { orderId: string } };
  t.ok(created.data?.orderId, 'an order created');
  t.equal(await first.stop(), 0, 'SIGTERM stops the server cleanly (exit 0)');
  t.match(first.output(), /"stopping","signal":"SIGTERM"/);

  const second = await container(dataDir, await freePort());
  const read = (await (
    await fetch(
      `${second.base.replace(/\/$/, '')}/api/v1/merchants/${register.merchant_id}/transactions/${created.data.orderId}`,
      {
        headers: auth,
      },
    )
  ).json()) as { data: { orderId: string; amount: number } };
  t.match(
    read.data,
    { orderId: created.data.orderId, amount: 1234 },
    'the order, read back by a new container on the same /data',
  );

  const suite = await second
    .exec('svc-contracts', '--base-url', second.base, '--allow-mutations')
    .catch((error: { stdout?: string; stderr?: string }) => error);
  t.match(
    suite.stdout,
    /checks: \d+ passed, 0 failed[\s\S]*PASSED/,
    'svc-contracts --allow-mutations inside the image passes',
    {
      stderr: suite.stderr?.slice(-600),
    },
  );
  t.equal(await second.stop(), 0);
});
