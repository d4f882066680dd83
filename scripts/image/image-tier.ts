import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
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
  const started = Date.now();
  await run('bash', [join(root, 'scripts/image/stand-in-base.sh')], { maxBuffer: 16 * 1024 * 1024 });
  t.comment(`base ready in ${Math.round((Date.now() - started) / 1000)} s`);
  const ca = spawnSync('npm', ['config', 'get', 'cafile'], { encoding: 'utf8' }).stdout.trim();
  const building = Date.now();
  await run(
    'podman',
    [
      'build',
      '--isolation',
      'chroot',
      '--format',
      'docker',
      ...(ca && ca !== 'null' && existsSync(ca) ? ['--secret', `id=ca,src=${ca}`] : []),
      '-t',
      IMAGE,
      root,
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  t.comment(`image built in ${Math.round((Date.now() - building) / 1000)} s`);
  const { stdout: healthcheck } = await run('podman', [
    'image',
    'inspect',
    '--format',
    '{{json .Config.Healthcheck}}',
    IMAGE,
  ]);
  t.match(healthcheck, /\/health/, 'the HEALTHCHECK is kept (docker format)');

  // The same Dockerfile without the CA secret: the mount is optional, so the build runs npm as it is. Where a
  // TLS-intercepting proxy is in the way (a CA bundle configured, as here) npm alone fails, on the certificate;
  // where none is, the build succeeds.
  const proxied = Boolean(ca && ca !== 'null' && existsSync(ca));
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
  if (proxied) {
    t.notOk(bare.ok, 'without the secret, behind the proxy: npm cannot fetch');
    t.match(
      bare.output,
      /npm (ERR|error)[\s\S]*(certificate|CERT|SSL|issuer)/i,
      "and it is npm's certificate error, not the missing secret",
    );
    // The RUN ran: its npm answered (the mount's own failure would stop the step before any command).
    t.match(bare.output, /npm (ERR|error)/, 'the mount is optional: the step ran without it');
  } else t.ok(bare.ok, 'without the secret and without a proxy: it builds');

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
