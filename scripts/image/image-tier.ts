import { spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { container } from './image-container.js';
import { IMAGE, caBundle, freePort, run, step, storageDriver } from './podman-host.js';
import { runReadmeJob } from './readme-job.js';

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

const root = fileURLToPath(new URL('../..', import.meta.url));
const has = (tool: string) => spawnSync(tool, ['--version']).status === 0;
const missing = ['podman', 'buildah'].filter((tool) => !has(tool));
const skip =
  missing.length > 0 && process.env.CI !== 'true'
    ? `${missing.join(' and ')} not installed (Debian's podman and buildah packages; .ci/run installs them)`
    : false;

t.setTimeout(900_000);

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

  // The README's GitHub Actions step, run as the job runs it: the report must be on the job's side afterwards.
  const job = await runReadmeJob(IMAGE, second.base);
  t.equal(job.code, 0, "the README's GitHub Actions step passes", { output: job.output.slice(-1500) });
  t.match(job.report ?? '', /<testsuites name="svc-contracts"/, 'and leaves its JUnit report in the workspace');
  t.equal(await second.stop(), 0);
});
