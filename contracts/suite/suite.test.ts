import t from 'tap';
import { startTestServer } from '../../server/testing/test-server.js';
import { coverageTable } from './recorder.js';
import { describeFailure } from './expectations.js';
import { runSuite } from './run-suite.js';
import { junitSuiteReport } from './suite-report.js';

t.test(
  'the contract suite passes against the real server in both profiles: no violation, no failed expectation, no unlisted coverage gap',
  async (t) => {
    const server = await startTestServer(t);
    server.clock.set(Date.now()); // the suite signs POS requests with the real time
    const loose = await runSuite({ baseUrl: server.baseUrl, allowMutations: true, profile: 'interface' });
    t.same(loose.violations, [], 'interface: every answer matches the document as the interface reads it');
    t.same(loose.failures.map(describeFailure), [], 'interface: every check held');
    t.notOk(loose.coverageJudged, 'coverage is judged on a strict run only');
    const result = await runSuite({ baseUrl: server.baseUrl, allowMutations: true });
    t.same(result.violations, [], 'every answer matches the document');
    t.same(result.failures.map(describeFailure), [], 'every expectation held');
    t.same(
      result.checks.filter((c) => c.outcome !== 'passed').map((c) => `${c.id} ${c.outcome}`),
      ['document.read-only skipped'],
      'every check ran and passed',
    );
    t.same(
      result.coverage.gaps,
      [],
      `every documented operation × status is exercised or listed with its reason\n${coverageTable(result.coverage)}`,
    );
    // 503 STORE_UNAVAILABLE (a failed fdatasync, a full disk) is documented on every writing operation and no request can cause it.
    const reachable =
      result.coverage.total - result.coverage.allowed.filter((entry) => entry.pair.endsWith(' 503')).length;
    t.ok(
      result.coverage.exercised / reachable > 0.9,
      `${result.coverage.exercised} of the ${reachable} pairs a request can cause exercised (${result.coverage.total} documented)`,
    );
  },
);

import { runCommand } from '../../server/testing/run-command.js';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
const run = (args: string[]) => runCommand(['--import', 'tsx', cli, ...args]);

t.test('svc-contracts passes against the real server on a random port and writes its report', async (t) => {
  const server = await startTestServer(t);
  server.clock.set(Date.now());
  const report = `${t.testdir()}/report.json`;
  const { code, out } = await run(['--base-url', server.baseUrl, '--allow-mutations', '--report', report]);
  t.equal(code, 0, out);
  t.match(out, /PASSED/);
  t.match(out, /coverage: \d+ of \d+ operation × status pairs exercised/);
  const written = JSON.parse(await readFile(report, 'utf8'));
  t.equal(written.passed, true);
  t.match(written.coverage.table, /\| getHealth \| ✓200 ·503 \|/);
  const readOnly = await run(['--base-url', server.baseUrl]);
  t.equal(readOnly.code, 0, readOnly.out);
  // A line per check as it ends, marked, piped as here: held, and skipped with the reason.
  t.match(readOnly.err, /^✓ document\.read-only \(\d+\.\d s\)$/m, 'a check that held, marked');
  t.match(
    readOnly.err,
    /^- orders\.transitions skipped: needs --allow-mutations$/m,
    'a skipped check, with its reason',
  );
  t.match((await run(['--help'])).out, /usage: svc-contracts/);
  t.equal((await run([])).code, 2);
});

t.test(
  'svc-contracts fails, naming operation, status, pointer, expected and got, on a deliberately broken answer',
  async (t) => {
    const server = await startTestServer(t);
    // A proxy that leaks a field into /health and passes everything else through.
    const broken = createServer(async (req, res) => {
      const upstream = await fetch(new URL(req.url!, server.baseUrl), {
        method: req.method,
        headers: req.headers as Record<string, string>,
      });
      const text = await upstream.text();
      const body = req.url === '/health' ? JSON.stringify({ ...JSON.parse(text), leaked_secret: 'oops' }) : text;
      res
        .writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' })
        .end(body);
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => broken.once('listening', resolve));
    t.teardown(() => broken.close());
    const junit = `${t.testdir()}/reports/not-made-yet/junit.xml`; // a folder a fresh clone does not have
    const { code, out } = await run([
      '--base-url',
      `http://127.0.0.1:${(broken.address() as AddressInfo).port}`,
      '--junit',
      junit,
    ]);
    t.equal(code, 1);
    t.match(
      out,
      /getHealth 200 \/leaked_secret: expected is not an allowed field, got "oops"\n {4}e\.g\. GET \/health/,
    );
    t.match(out, /FAILED/);
    const xml = await readFile(junit, 'utf8');
    t.match(
      xml,
      /<testcase classname="svc-contracts\.document" name="getHealth 200 \/leaked_secret">\n {6}<failure message="expected is not an allowed field, got &quot;oops&quot;" type="DocumentViolation">/,
      'the violation as a failed test case',
    );
    t.match(
      xml,
      /<testcase classname="svc-contracts\.document" name="getOpenApiDocument 200"\/>/,
      'what held as a passed one',
    );
    t.match(xml, /<testsuites name="svc-contracts" tests="\d+" failures="1"/);
  },
);

t.test('identical violations are one group with a count; list items count as one place', async (t) => {
  const { groupViolations } = await import('./suite-report.js');
  const v = (request: string, pointer: string) => ({
    request,
    operation: 'listOrders',
    status: 200,
    pointer,
    expected: 'an integer',
    got: '"1"',
  });
  const groups = groupViolations([
    v('GET /a', '/data/0/amount'),
    v('GET /a', '/data/1/amount'),
    v('GET /b', '/data/0/amount'),
    v('GET /c', '/data/0/total'),
  ]);
  t.same(
    groups.map((g) => [g.pointer, g.count, g.requests]),
    [
      ['/data/*/amount', 3, ['GET /a', 'GET /b']],
      ['/data/*/total', 1, ['GET /c']],
    ],
  );
});

t.test(
  'an endpoint that never answers, or a network error, fails that request by name, and the run goes on',
  async (t) => {
    // A target whose /health hangs forever; everything else answers at once.
    const hanging = createServer((req, res) => {
      if (req.url === '/health') return; // never answered
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"no","code":"NOT_FOUND"}');
    });
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    t.teardown(() => {
      hanging.closeAllConnections();
      hanging.close();
    });
    const base = `http://127.0.0.1:${(hanging.address() as { port: number }).port}`;
    const started = Date.now();
    const result = await runSuite({ baseUrl: base, allowMutations: false, requestTimeoutMs: 200 });
    t.ok(Date.now() - started < 20_000, 'bounded by the time limit, not by the endpoint');
    t.ok(
      result.failures.some(
        (f) =>
          f.request === 'GET /health' &&
          f.got === 'no answer within 0.2 s (--request-timeout)' &&
          f.check === 'document.read-only',
      ),
      'the request named, with why, in the check it belongs to',
    );
    t.notOk(
      result.failures.some((f) => f.expected === 'the check to run to its end'),
      'the run went on',
    );
    t.ok(
      result.violations.some((v) => v.request.includes('/openapi.json')),
      'and the requests after it were made and checked',
    );

    // Nothing listening at all: every request fails by name, and the run still ends normally.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await runSuite({
      baseUrl: `http://127.0.0.1:${port}`,
      allowMutations: false,
      requestTimeoutMs: 1000,
    });
    t.ok(
      refused.failures.some((f) => f.request === 'GET /health' && f.got === 'network error: ECONNREFUSED'),
      'a refused connection, named',
    );
    t.notOk(
      refused.failures.some((f) => f.expected === 'the check to run to its end'),
      'the run went on',
    );
  },
);

t.test('svc-contracts pointed at nothing says once that it cannot reach the server, and exits 3', async (t) => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise((resolve) => closed.close(resolve));
  const { code, out, err } = await run(['--base-url', baseUrl, '--allow-mutations']);
  t.equal(code, 3, 'an exit code of its own');
  t.equal(out, '', 'no report of checks that did not run');
  t.equal(
    err,
    `svc-contracts: cannot reach ${baseUrl} (network error: ECONNREFUSED); is the server running? Nothing was checked.\n`,
  );
});

t.test(
  'svc-contracts --list-checks names every check with its source; a bad profile or an unknown check is a usage error',
  async (t) => {
    const listed = await run(['--list-checks']);
    t.equal(listed.code, 0);
    t.match(
      listed.out,
      /orders\.transitions \(with --allow-mutations\)\n {4}every cell of the order transition table[^\n]*\n {4}source: INTERFACE.md §3/,
    );
    t.match(listed.out, /webhooks\.retries/);
    t.equal((await run(['--base-url', 'http://127.0.0.1:9', '--profile', 'loose'])).code, 2);
    const unknown = await run(['--base-url', 'http://127.0.0.1:9', '--checks', 'orders,nosuch']);
    t.equal(unknown.code, 2);
    t.match(unknown.err, /no such check nosuch/);
    t.equal((await run(['--base-url', 'http://127.0.0.1:9', '--operation', 'noSuchOperation'])).code, 2);
    const noFile = await run(['--base-url', 'http://127.0.0.1:9', '--console-token-file', '/nonexistent/token']);
    t.equal(noFile.code, 2, 'an unreadable token file');
    t.match(noFile.err, /svc-contracts: --console-token-file \/nonexistent\/token: no such file/);
    const nothing = await run(['--base-url', 'http://127.0.0.1:9', '--checks', 'orders']);
    t.equal(nothing.code, 2, 'a selection that leaves nothing to run');
    t.match(nothing.err, /the selection leaves no check to run \(the checks selected need --allow-mutations\)/);
    const schemeless = await run(['--base-url', 'localhost:3000']);
    t.equal(schemeless.code, 2, 'a URL without its scheme is a usage error, not an unreachable server');
    t.match(
      schemeless.err,
      /--base-url is an http:\/\/ or https:\/\/ URL, got "localhost:3000" \(did you mean http:\/\/localhost:3000\?\)/,
    );
    const blocked = await run(['--base-url', 'http://127.0.0.1:9', '--junit', '/proc/version/x.xml']);
    t.equal(blocked.code, 2, 'a report that cannot be written is said before anything runs');
    t.match(blocked.err, /^svc-contracts: --junit \/proc\/version\/x\.xml: cannot write there \(E[A-Z]+\)\n/);
    t.notMatch(blocked.err, /\n\s+at /, 'no stack trace');
  },
);

t.test(
  '--operation selects the checks that exercise an operation (by id or tag); --exclude-checks leaves some out',
  async (t) => {
    const server = await startTestServer(t);
    server.clock.set(Date.now());
    const result = await runSuite({
      baseUrl: server.baseUrl,
      allowMutations: true,
      profile: 'interface',
      operations: ['reorderStops'],
      excludeChecks: ['document', 'isolation'],
    });
    const ran = result.checks.filter((c) => c.outcome !== 'skipped').map((c) => c.id);
    t.same(ran, ['stops.order'], 'only the check that reorders stops');
    t.match(result.checks.find((c) => c.id === 'orders.transitions')?.reason, /--operation/);
    t.match(result.checks.find((c) => c.id === 'isolation.other-account')?.reason, /--exclude-checks/);
    t.notOk(result.coverageJudged, 'a selection does not judge coverage');
    t.same(result.failures, []);
  },
);

t.test(
  'a broken rule fails its check with the request, the exact expectation and a curl line, in the output, the JSON report and JUnit',
  async (t) => {
    const { startMutatingProxy } = await import('../testing/mutating-proxy.js');
    const { mutations } = await import('../testing/mutations.js');
    const server = await startTestServer(t);
    server.clock.set(Date.now());
    const mutation = mutations.find((m) => m.name.startsWith('order conflicts carry the code CONFLICT'))!;
    const proxy = await startMutatingProxy(server.baseUrl, mutation);
    t.teardown(proxy.close);
    const dir = t.testdir();
    const { code, out } = await run([
      '--base-url',
      proxy.baseUrl,
      '--allow-mutations',
      '--profile',
      'interface',
      '--checks',
      'orders.transitions',
      '--report',
      `${dir}/report.json`,
      '--junit',
      `${dir}/junit.xml`,
    ]);
    t.equal(code, 1, out);
    t.match(
      out,
      /\[orders\.transitions\] POST \/api\/v1\/merchants\/[^ ]+\/transactions\/[^ ]+\/invalidation → 409 \/code: expected "ORDER_STATE_CONFLICT", got "CONFLICT" \(INTERFACE.md §3 \(transition table\)\)\n {4}curl -sS -i -X POST -H "authorization: Bearer \$SVC_TOKEN"/,
    );
    t.notMatch(out, /Bearer sk_/, 'no token in clear');
    const report = JSON.parse(await readFile(`${dir}/report.json`, 'utf8'));
    t.equal(report.profile, 'interface');
    t.match(report.failures[0], {
      check: 'orders.transitions',
      operation: /invalidateOrder|commitOrderPayment|commitOrderVoid/,
      status: 409,
      pointer: '/code',
      expected: '"ORDER_STATE_CONFLICT"',
      got: '"CONFLICT"',
      curl: /^curl /,
    });
    t.match(
      report.checks.find((c: { id: string }) => c.id === 'orders.transitions'),
      { outcome: 'failed' },
    );
    const xml = await readFile(`${dir}/junit.xml`, 'utf8');
    t.match(
      xml,
      /<testcase classname="svc-contracts\.checks" name="orders\.transitions: [^"]+" time="[\d.]+">\n {6}<failure message="\d+ failed expectation\(s\); \[orders\.transitions\]/,
    );
    t.match(
      xml,
      /<testcase classname="svc-contracts\.checks" name="orders\.lists: [^"]+" time="0\.000">\n {6}<skipped message="not selected \(--checks\)"\/>/,
    );
  },
);

t.test(
  "the JUnit file counts the checks in a suite of their own, beside the document's operation × status pairs",
  async (t) => {
    const server = await startTestServer(t);
    server.clock.set(Date.now());
    const result = await runSuite({ baseUrl: server.baseUrl, allowMutations: true, checks: ['orders.lists'] });
    const xml = junitSuiteReport(result, server.baseUrl, 1);
    const suites = [...xml.matchAll(/<testsuite name="([^"]*)" tests="(\d+)"/g)].map((match) => [
      match[1],
      Number(match[2]),
    ]);
    t.match(
      suites[0],
      [/: \d+ checks$/, result.checks.length],
      'the first suite: one case per check, as the console counts them',
    );
    t.match(suites[1], [/by operation × status/, Number]);
    const total = Number(/<testsuites name="svc-contracts" tests="(\d+)"/.exec(xml)![1]);
    t.equal(
      total,
      suites.reduce((sum, [, count]) => sum + (count as number), 0),
      'the whole is the parts',
    );
  },
);
