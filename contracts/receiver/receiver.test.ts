import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { startExampleReceiver } from '../../scripts/example-receiver.js';
import { startTestServer, registerAccount } from '../../server/testing/test-server.js';
import { verifyWebhook } from '../webhook-signature.js';
import { CHECKS } from './checks.js';
import { gradeReceiver } from './grade.js';
import { directTransport } from './transport.js';

const SECRET = `whsec_${'ab'.repeat(32)}`;
// The slow receiver's case is graded against a 0.6 s attempt limit (instead of the simulator's 5 s) so it takes seconds, not minutes.
const LIMIT_MS = 600;
const SLOW_MS = 800;
// The checks run one after another, so the slow receiver's grading takes about 20 deliveries × SLOW_MS.
t.setTimeout(240_000);
const cli = fileURLToPath(new URL('../suite/cli.ts', import.meta.url));
const run = promisify(execFile);

/** The example receiver with one rule broken, as integrators break them. */
type Mistake =
  | 'no signature check'
  | 'signature over JSON.stringify(body)'
  | 'no timestamp check'
  | '500 on an unknown event type'
  | 'a handler slower than the attempt limit';

function mistakenReceiver(mistake: Mistake): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let verdict;
      if (mistake === 'no signature check') {
        const at = Date.parse(String(req.headers['svc-timestamp']));
        verdict = { ok: !Number.isNaN(at) && Math.abs(Date.now() - at) <= 300_000 };
      } else {
        const rawBody = mistake === 'signature over JSON.stringify(body)' ? JSON.stringify(JSON.parse(raw)) : raw;
        verdict = verifyWebhook({
          rawBody,
          headers: req.headers,
          secret: SECRET,
          ...(mistake === 'no timestamp check' ? { toleranceSeconds: Number.POSITIVE_INFINITY } : {}),
        });
      }
      if (!verdict.ok) return void res.writeHead(401).end('{"error":"bad signature"}');
      if (
        mistake === '500 on an unknown event type' &&
        !/^payment_session\.(created|paid|accredited|accreditation_to_recipient_failed)$/.test(
          (JSON.parse(raw) as { event: string }).event,
        )
      ) {
        return void res.writeHead(500).end('{"error":"unknown event"}');
      }
      const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      if (mistake === 'a handler slower than the attempt limit') setTimeout(answer, SLOW_MS);
      else answer();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks` }),
    ),
  );
}

t.test('the example receiver scores 100 %', async (t) => {
  const receiver = await startExampleReceiver({ secret: SECRET });
  t.teardown(() => receiver.server.close());
  const grade = await gradeReceiver({ transport: directTransport(receiver.url, 10_000), secret: SECRET });
  t.same(
    grade.checks
      .filter((check) => check.outcome !== 'pass')
      .map(
        (check) =>
          `${check.id}: ${
            check.note ??
            check.probes
              .filter((p) => !p.passed)
              .map((p) => `${p.name} → ${p.answer.status ?? p.answer.error}`)
              .join('; ')
          }`,
      ),
    [],
  );
  t.equal(grade.score, 100);
  t.equal(grade.passed, true);
  t.equal(grade.checks.length, CHECKS.length, 'every check ran');
});

t.test('a receiver with each common mistake fails the check of that mistake, and no other', async (t) => {
  const expected: Record<Mistake, string> = {
    'no signature check': 'rejects-bad-signature',
    'signature over JSON.stringify(body)': 'signature-over-raw-bytes',
    'no timestamp check': 'timestamp-tolerance',
    '500 on an unknown event type': 'forward-compatible',
    'a handler slower than the attempt limit': 'latency',
  };
  // Every answer over the attempt limit is a failed attempt, so slowness also fails the checks that grade each answer's time.
  const alsoFailed: Partial<Record<Mistake, string[]>> = {
    'a handler slower than the attempt limit': ['sessions-interleaved', 'concurrency'],
  };
  // Graded side by side: the slow one takes about half a minute whatever else runs.
  await Promise.all(
    (Object.keys(expected) as Mistake[]).map(async (mistake) => {
      const receiver = await mistakenReceiver(mistake);
      try {
        const grade = await gradeReceiver({
          transport: directTransport(receiver.url, 10_000),
          secret: SECRET,
          maxLatencyMs: LIMIT_MS,
        });
        const failedRequired = grade.checks
          .filter((check) => check.required && check.outcome === 'fail')
          .map((check) => check.id);
        const wanted = [expected[mistake], ...(alsoFailed[mistake] ?? [])];
        t.same(failedRequired.sort(), wanted.sort(), `${mistake}: fails ${wanted.join(', ')} only`);
        t.equal(grade.passed, false, `${mistake}: the run fails`);
        t.ok(grade.score < 100, `${mistake}: score ${grade.score} %`);
        t.comment(`${mistake}: ${grade.score} %, failed ${failedRequired.join(', ')}`);
        if (mistake === 'no signature check')
          t.equal(
            grade.checks.find((check) => check.id === 'signature-over-raw-bytes')?.outcome,
            'skipped',
            'the raw-bytes check is not graded without a signature check',
          );
      } finally {
        receiver.server.close();
      }
    }),
  );
});

t.test("through the simulator's relay, as in a demo, the example receiver scores 100 %", async (t) => {
  const server = await startTestServer(t);
  const account = await registerAccount(server.api);
  const receiver = await startExampleReceiver({ secret: account.key.webhook_secret });
  t.teardown(() => receiver.server.close());
  const dir = t.testdir();
  const result = await run(
    process.execPath,
    [
      '--import',
      'tsx',
      cli,
      'receiver',
      '--url',
      receiver.url,
      '--via-relay',
      '--base-url',
      server.baseUrl,
      '--junit',
      join(dir, 'junit.xml'),
      '--report',
      join(dir, 'grade.json'),
    ],
    {
      env: { ...process.env, SVC_WEBHOOK_SECRET: account.key.webhook_secret, SVC_TOKEN: account.key.token },
    },
  ).catch((error: { code: number; stdout: string; stderr: string }) => error);
  t.match(result.stdout, /score: 100 %/, 'every check passes through the relay');
  t.match(result.stdout, /through the relay of/);
  const junit = await readFile(join(dir, 'junit.xml'), 'utf8');
  t.match(junit, new RegExp(`<testsuite name="receiver [^"]*" tests="${CHECKS.length}" failures="0"`));
  const report = JSON.parse(await readFile(join(dir, 'grade.json'), 'utf8')) as { passed: boolean; checks: unknown[] };
  t.equal(report.passed, true);
  t.equal(report.checks.length, CHECKS.length);
});

t.test('the command: exit 1 with each failure as curl, JUnit failures, usage errors exit 2', async (t) => {
  const receiver = await mistakenReceiver('no timestamp check');
  t.teardown(() => receiver.server.close());
  const dir = t.testdir();
  const failing = await run(process.execPath, [
    '--import',
    'tsx',
    cli,
    'receiver',
    '--url',
    receiver.url,
    '--secret',
    SECRET,
    '--checks',
    'timestamp-tolerance,signed-paid',
    '--junit',
    join(dir, 'junit.xml'),
  ]).then(
    () => null,
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  t.equal(failing?.code, 1);
  t.match(failing?.stdout, /\| timestamp-tolerance \| yes \| FAIL \|/);
  t.match(failing?.stdout, /signed 5 min 10 s ago: expected non-2xx, got 200/);
  t.match(
    failing?.stdout,
    /TS=\$\(node -e 'console\.log\(new Date\(Date\.now\(\) \+ \(-310000\)\)\.toISOString\(\)\)'\);/,
    'the curl line signs anew, 5 min 10 s back from when it runs',
  );
  t.match(
    failing?.stdout,
    /curl -sS -X POST 'http:\/\/127\.0\.0\.1:\d+\/webhooks' -H 'content-type: application\/json' -H "svc-timestamp: \$TS" -H "svc-signature: \$SIG"/,
  );
  t.match(failing?.stderr, /warning: --secret is visible to every local user in ps/);
  const junit = await readFile(join(dir, 'junit.xml'), 'utf8');
  t.match(junit, /tests="2" failures="1"/);
  t.match(junit, /<failure message="a timestamp more than 5 minutes away/);

  const usage = await run(process.execPath, ['--import', 'tsx', cli, 'receiver', '--secret', SECRET]).then(
    () => null,
    (error: { code: number; stderr: string }) => error,
  );
  t.equal(usage?.code, 2);
  t.match(usage?.stderr, /--url is required/);
  const help = await run(process.execPath, ['--import', 'tsx', cli, 'receiver', '--help']);
  t.match(help.stdout, /usage: svc-contracts receiver/);
  const list = await run(process.execPath, ['--import', 'tsx', cli, 'receiver', '--list-checks']);
  for (const check of CHECKS) t.match(list.stdout, check.id);
});

t.test('a stall of the whole machine during the timed checks is not held against a correct receiver', async (t) => {
  // A busy CI machine, made certain: while the 20 concurrent deliveries are in flight, the process (the grader,
  // the receiver and the reference alike) is frozen for twice the attempt limit. Judged on time alone, every
  // answer is over the limit; judged on its own time (the reference's taken off), the receiver is fine.
  let arrived = 0;
  let stalled = false;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    arrived += 1;
    if (arrived === 3 && !stalled) {
      stalled = true;
      setImmediate(() => {
        const until = performance.now() + 2 * LIMIT_MS;
        while (performance.now() < until); // the machine is busy elsewhere
      });
    }
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const ok = verifyWebhook({
        rawBody: Buffer.concat(chunks).toString('utf8'),
        headers: req.headers,
        secret: SECRET,
      }).ok;
      res.writeHead(ok ? 200 : 401).end(ok ? '{"ok":true}' : '{"error":"bad signature"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  const grade = await gradeReceiver({
    transport: directTransport(url, 10_000),
    secret: SECRET,
    maxLatencyMs: LIMIT_MS,
    only: ['concurrency'],
  });
  t.ok(stalled, 'the machine stalled during the check');
  const probes = grade.checks[0]!.probes;
  t.ok(
    probes.some((probe) => probe.answer.ms > LIMIT_MS),
    `answers over the limit by the clock: ${probes.filter((probe) => probe.answer.ms > LIMIT_MS).length}`,
  );
  t.equal(grade.checks[0]!.outcome, 'pass', 'but none of it was the receiver: concurrency passes');
});
