import { spawnSync } from 'node:child_process';
import { bash } from './testing/bash.js';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { missingTool } from '../contracts/common/missing-tool.js';
import { startServerProcess, stopServerProcess } from './testing/server-process.js';

// The README's walkthrough, pasted into bash as a new user would, against a
// server started as `npm start` starts it: twice on the same data, since a
// second run is what a newcomer does next.

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const walkthrough = /### Walkthrough[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];

t.test(
  'the README walkthrough runs, and runs again on the same data',
  { skip: missingTool('curl', () => spawnSync('curl', ['--version']).status === 0, "install Debian's curl package") },
  async (t) => {
    t.ok(walkthrough, 'the README has the walkthrough');
    const data = mkdtempSync(join(tmpdir(), 'walkthrough-'));
    t.teardown(() => rmSync(data, { recursive: true, force: true }));
    const server = await startServerProcess({ DATA_DIR: join(data, 'store') });
    t.teardown(() => stopServerProcess(server));
    const script = walkthrough!.replace(/^B=.*$/m, `B=${server.baseUrl}`);
    t.not(script, walkthrough, 'the base URL is pointed at this server');
    for (const run of ['first', 'second']) {
      const result = await bash(script, data);
      t.equal(result.stderr, '', `${run} run: nothing on stderr`);
      t.equal(result.code, 0, `${run} run: exits 0`);
      const lines = result.stdout.trim().split('\n');
      t.match(
        lines[0],
        /^pay it in a browser: http:\/\/\S+\/pay\/\S+ {3}\(key 000000 pays\)$/,
        `${run} run: the page's address`,
      );
      t.same(lines.slice(1, 3), ['paid', 'accredited'], `${run} run: paid, then accredited once the clock moved`);
      t.same(
        lines.slice(3).map((line) => line.split(' ')[1]),
        ['payment_session.accredited', 'payment_session.paid', 'payment_session.created'],
        `${run} run: the three webhooks, newest first`,
      );
      t.same(
        readdirSync(data),
        ['store'],
        `${run} run: no file left where it ran (the account's secrets stay in the shell)`,
      );
    }
  },
);

const root = fileURLToPath(new URL('..', import.meta.url));

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const ciBlock = /\*\*CI running contract tests\.\*\*[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];

/** The CI block as pasted, on `port`, with the server's log and the report in `dir`. */
function ciScript(port: number, dir: string): string {
  return ciBlock!
    .replaceAll('127.0.0.1:3000', `127.0.0.1:${port}`)
    .replaceAll('server.log', join(dir, 'server.log'))
    .replace('reports/contracts.xml', join(dir, 'reports', 'contracts.xml'));
}

const withCurl = {
  skip: missingTool('curl', () => spawnSync('curl', ['--version']).status === 0, "install Debian's curl package"),
};

t.test(
  "the README's CI block fails, fast and with its server's words, when its own server is not the one answering",
  withCurl,
  async (t) => {
    t.ok(ciBlock, 'the README has the CI block');
    const dir = mkdtempSync(join(tmpdir(), 'ci-block-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));

    // Another server already holds the port and the data directory: the block's own server stops, and the
    // suite must not run against the other one.
    const other = await startServerProcess({ DATA_DIR: join(dir, 'data') });
    t.teardown(() => stopServerProcess(other));
    const port = Number(new URL(other.baseUrl).port);
    const taken = await bash(ciScript(port, dir), root, { PORT: String(port), DATA_DIR: join(dir, 'data') });
    t.not(taken.code, 0, 'the block fails when another server answers on its port');
    t.match(taken.stderr, /the server did not start:[\s\S]*in use/, "with its own server's words");
    t.notMatch(taken.stdout, /PASSED|checks: /, 'the suite never ran against the other server');

    // A bad setting: the server exits at once, and the block with it (it used to wait for ever).
    const port2 = await freePort();
    const bad = await bash(ciScript(port2, dir), root, {
      PORT: String(port2),
      DATA_DIR: join(dir, 'data2'),
      LOG_LEVEL: 'x',
    });
    t.not(bad.code, 0, 'the block fails on a bad setting');
    t.match(bad.stderr, /the server did not start:[\s\S]*LOG_LEVEL/, "naming the setting, in the server's words");
  },
);

t.test(
  "the README's CI block: a server started for the job, the suite with mutations, a JUnit file in a folder that does not exist yet",
  { skip: missingTool('curl', () => spawnSync('curl', ['--version']).status === 0, "install Debian's curl package") },
  async (t) => {
    t.ok(ciBlock, 'the README has the CI block');
    const dir = mkdtempSync(join(tmpdir(), 'ci-block-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const port = await freePort();
    // As pasted, but on a free port, with the server's data, its log and the report in a folder of the test's.
    const script = ciScript(port, dir);
    const result = await bash(script, root, { PORT: String(port), DATA_DIR: join(dir, 'data') });
    t.equal(result.code, 0, result.stdout.slice(-2000) + result.stderr.slice(-2000));
    t.match(result.stdout, /PASSED/);
    t.notMatch(result.stdout, /judged: /, 'nothing left unjudged by a run with mutations');
    t.match(readFileSync(join(dir, 'reports', 'contracts.xml'), 'utf8'), /<testsuites name="svc-contracts"/);
    // Its teardown leaves nothing: the port answers no more, and no process holds the data directory.
    t.notOk(
      await fetch(`http://127.0.0.1:${port}/health`).then(
        () => true,
        () => false,
      ),
      'the server is gone',
    );
    const holders = spawnSync('pgrep', ['-f', 'dist/server/main.js'], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter(Boolean);
    const ours = holders.filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').includes(join(dir, 'data'));
      } catch {
        return false;
      }
    });
    t.same(ours, [], 'no server process left with the data directory of the block');
  },
);
