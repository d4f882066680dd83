import { execFile, spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { stringify } from 'yaml';
import { startTestServer } from '../server/testing/test-server.js';
import { waitFor } from '../server/testing/wait-for.js';

// The commands are products: packed as they would be published, installed
// with production dependencies only (no TypeScript, no tsx), each must run
// from compiled JavaScript.

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const COMMANDS = [
  'svc-terminal',
  'svc-contracts',
  'svc-relay',
  'svc-scenario',
  'svc-pos-sim',
  'svc-replay',
  'svc-race',
  'svc-demo',
  'svc-store',
];

t.test('npm pack, then a production-only install of the tarball: every command answers --help', async (t) => {
  const dir = t.testdir();
  // Packing runs prepare, which builds dist/.
  await run('npm', ['pack', '--pack-destination', dir], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
  const [tarball] = (await readdir(dir)).filter((name) => name.endsWith('.tgz'));
  t.ok(tarball, 'a tarball');
  const size = statSync(join(dir, tarball!)).size;
  t.ok(size < 1024 * 1024, `the tarball is under 1 MB (${Math.round(size / 1024)} KB)`);
  const { stdout: listing } = await run('tar', ['-tzf', join(dir, tarball!)], { maxBuffer: 16 * 1024 * 1024 });
  const entries = listing.split('\n').filter(Boolean);
  t.same(
    entries.filter((entry) => /\.test\.|-testkit\.|\/testing\//.test(entry)),
    [],
    'no test file or test kit in the package',
  );
  for (const file of ['package/LICENSE', 'package/CHANGELOG.md', 'package/README.md'])
    t.ok(entries.includes(file), `${file} in the package`);
  const app = join(dir, 'app');
  await run('mkdir', ['-p', app]);
  await writeFile(
    join(app, 'package.json'),
    JSON.stringify({ name: 'packed-install-check', version: '1.0.0', private: true }),
  );
  // The registry's packages come from the local cache where it has them (npm ci filled it).
  await run('npm', ['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', join(dir, tarball!)], {
    cwd: app,
    maxBuffer: 16 * 1024 * 1024,
  });
  const installed = await readdir(join(app, 'node_modules'));
  t.notOk(installed.includes('typescript') || installed.includes('tsx'), 'no TypeScript tooling installed');
  for (const command of COMMANDS) {
    const { stdout } = await run(join(app, 'node_modules', '.bin', command), ['--help']);
    t.match(stdout, new RegExp(`usage: ${command}`), `${command} --help`);
    const version = await run(join(app, 'node_modules', '.bin', command), ['--version']);
    t.match(version.stdout, new RegExp(`^${command} \\d+\\.\\d+\\.\\d+ \\(svc-pos-sim\\)\\n$`), `${command} --version`);
  }
  const { stdout } = await run(join(app, 'node_modules', '.bin', 'svc-terminal'), ['held', '--help']);
  t.match(stdout, /usage: svc-terminal held/);

  // More than --help: the installed contract suite runs a whole run's machinery (checks, coverage, reports)
  // against a real server; a file it reads at run time must be in the package. (A subtest: the server's
  // data goes in a test dir of its own, since a second t.testdir() here would empty this one.)
  await t.test('the installed svc-contracts runs checks against a real server', async (t) => {
    const server = await startTestServer(t);
    server.clock.set(Date.now());
    const suite = await run(join(app, 'node_modules', '.bin', 'svc-contracts'), [
      '--base-url',
      server.baseUrl,
      '--allow-mutations',
      '--checks',
      'orders.lists,document.served',
    ]).catch((error: { stdout?: string; stderr?: string }) => error);
    t.match(suite.stdout, /checks: 2 passed, 0 failed, \d+ skipped[\s\S]*PASSED/, suite.stderr?.slice(-400) ?? '');
  });

  await t.test(
    'the installed svc-demo seeds a real server, svc-replay sends its batches, svc-store checks a data directory',
    async (t) => {
      const server = await startTestServer(t);
      server.clock.set(Date.now());
      const bin = (command: string) => join(app, 'node_modules', '.bin', command);
      const demo = await run(bin('svc-demo'), ['--base-url', server.baseUrl]);
      t.match(demo.stdout, /Demo world seeded on http/);
      const merchant = /merchant id +(\S+)/.exec(demo.stdout)![1]!;
      const token = /API token +(\S+)/.exec(demo.stdout)![1]!;
      const replayed = await run(
        bin('svc-replay'),
        [
          '--base-url',
          server.baseUrl,
          '--terminal',
          'PACKED-1',
          '--merchant-id',
          merchant,
          join(root, 'fixtures', 'batches', 'pos-0001-usd-week.json'),
        ],
        { env: { ...process.env, SVC_TOKEN: token } },
      ).catch((error: { stdout?: string; stderr?: string }) => error);
      t.match(replayed.stdout, /created/, replayed.stderr?.slice(-400) ?? '');
      const checked = await run(bin('svc-store'), ['check', server.config.dataDir]);
      t.match(checked.stdout, /journal/);
      // svc-relay connects with the demo's token, and says what it kept when stopped.
      const relay = spawn(
        bin('svc-relay'),
        ['--base-url', server.baseUrl, '--forward-to', 'http://127.0.0.1:9/hooks'],
        {
          env: { ...process.env, SVC_TOKEN: token, XDG_STATE_HOME: t.testdir() },
        },
      );
      let relayed = '';
      relay.stdout.setEncoding('utf8').on('data', (chunk: string) => (relayed += chunk));
      await waitFor(() => /relay connected to/.test(relayed), 20_000, 'svc-relay to connect');
      relay.kill('SIGTERM');
      t.equal(await new Promise((resolve) => relay.on('exit', resolve)), 0);
      t.match(relayed, /stopped; /);
    },
  );

  await t.test(
    'the installed svc-terminal plays a bundled transcript; svc-pos-sim serves; svc-race races',
    async (t) => {
      const bin = (command: string) => join(app, 'node_modules', '.bin', command);
      const transcript = join(
        app,
        'node_modules',
        'svc-pos-sim',
        'fixtures',
        'serial',
        'zvt',
        'registration-and-status.json',
      );
      const played = await run(bin('svc-terminal'), ['play', '--emulated', transcript]);
      t.match(played.stdout, /ok: 8 APDUs, byte for byte/);
      const nexo = join(
        app,
        'node_modules',
        'svc-pos-sim',
        'fixtures',
        'nexo',
        'transcripts',
        'diagnosis-payment-status.json',
      );
      const playedNexo = await run(bin('svc-terminal'), ['play', '--emulated', nexo]);
      t.match(playedNexo.stdout, /ok: 5 responses, field for field/, 'a nexo transcript (node-forge installed)');
      const server = spawn(bin('svc-pos-sim'), [], {
        env: { ...process.env, PORT: '0', DATA_DIR: join(t.testdir(), 'data'), LOG_LEVEL: 'silent' },
      });
      let served = '';
      server.stdout.setEncoding('utf8').on('data', (chunk: string) => (served += chunk));
      await waitFor(() => /listening on http/.test(served), 20_000, 'svc-pos-sim to listen');
      const url = /listening on (http:\/\/\S+)/.exec(served)![1]!;
      t.equal((await fetch(`${url}/health`)).status, 200);
      // That install's contract suite against that install's server.
      const suite = await run(bin('svc-contracts'), [
        '--base-url',
        url,
        '--allow-mutations',
        '--checks',
        'orders.lists,document.served',
      ]).catch((error: { stdout?: string; stderr?: string }) => error);
      t.match(suite.stdout, /checks: 2 passed, 0 failed, \d+ skipped[\s\S]*PASSED/, suite.stderr?.slice(-400) ?? '');
      server.kill('SIGTERM');
      t.equal(await new Promise((resolve) => server.on('exit', resolve)), 0, 'stopped cleanly');
      const raced = await run(bin('svc-race'), ['--orders', '1', '--report', join(t.testdirName, 'race')], {
        maxBuffer: 16 * 1024 * 1024,
      }).catch((error: { stdout?: string; stderr?: string }) => error);
      t.match(raced.stdout, /race\.md/, raced.stderr?.slice(-400) ?? '');
    },
  );

  await t.test('the installed svc-scenario plays a JSON and a YAML scenario against a real server', async (t) => {
    const server = await startTestServer(t);
    server.clock.set(Date.now());
    const json = join(root, 'fixtures', 'scenarios', 'discard-then-commit.json');
    const yaml = join(t.testdir(), 'discard-then-commit.yaml');
    writeFileSync(yaml, stringify(JSON.parse(readFileSync(json, 'utf8'))));
    const junit = join(t.testdirName, 'reports', 'scenarios.xml'); // a folder that does not exist yet
    const played = await run(join(app, 'node_modules', '.bin', 'svc-scenario'), [
      'run',
      '--base-url',
      server.baseUrl,
      '--junit',
      junit,
      json,
      yaml,
    ]).catch((error: { stdout?: string; stderr?: string }) => error);
    t.match(played.stdout, /2 passed, 0 failed, 0 skipped/, played.stderr?.slice(-400) ?? '');
    // Where the bundled scenarios are in an installed package, as its --help says.
    const help = await run(join(app, 'node_modules', '.bin', 'svc-scenario'), ['--help']);
    const folder = /are in\n(\S+)\n/.exec(help.stdout)?.[1];
    t.ok(
      folder && folder.includes(join('node_modules', 'svc-pos-sim', 'fixtures', 'scenarios')),
      `--help names ${folder}`,
    );
    t.equal(
      (await readdir(folder!)).filter((name) => name.endsWith('.json')).length,
      33,
      'the 33 bundled files are there',
    );
    t.match(readFileSync(junit, 'utf8'), /<testsuites/, 'the JUnit file, its folder made');
  });
});
