import { execFile, spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { startExampleReceiver } from '../../scripts/example-receiver.js';
import { startRelayClient } from '../clients/relay-client.js';
import { registerAccount, startTestServer } from '../../server/testing/test-server.js';
import { verifyWebhook } from '../webhook-signature.js';
import { gradeReceiver, type Grade } from './grade.js';
import { curlOf, junitReport, textReport } from './report.js';
import { directTransport, relayTransport } from './transport.js';

// The grader against receivers it did not write (issue 27): one written
// from the interface alone in Python with the standard library's defaults, and
// Node ones with one way of going wrong each, graded directly and through
// the simulator's relay. Each case states the grade it must get.

const SECRET = `whsec_${'cd'.repeat(32)}`;
t.setTimeout(240_000);
const cli = fileURLToPath(new URL('../suite/cli.ts', import.meta.url));
const run = promisify(execFile);
const failedChecks = (grade: Grade) =>
  grade.checks
    .filter((check) => check.required && check.outcome === 'fail')
    .map((check) => check.id)
    .sort();
const python = spawnSync('python3', ['--version']).status === 0;

/** A Node receiver that verifies as the interface says, then does what `after` says. */
function nodeReceiver(
  after: (req: IncomingMessage, res: ServerResponse, verified: boolean, raw: string) => void,
  secret = SECRET,
): Promise<{ server: Server; url: string; close(): void }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      after(req, res, verifyWebhook({ rawBody: raw, headers: req.headers, secret }).ok, raw);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
      resolve({ server, url, close: () => void server.close() });
    }),
  );
}
const plain = (_req: IncomingMessage, res: ServerResponse, verified: boolean) =>
  void res.writeHead(verified ? 200 : 401).end(verified ? 'ok' : 'bad signature');

/** A port nothing listens on. */
async function closedPort(): Promise<string> {
  const receiver = await nodeReceiver(plain);
  receiver.server.close();
  await new Promise((resolve) => receiver.server.once('close', resolve));
  return receiver.url;
}

const PYTHON_RECEIVER = `
import hashlib, hmac, sys, time
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET = sys.argv[1].encode()

class Hook(BaseHTTPRequestHandler):
    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get('content-length', 0)))
        ts = self.headers.get('svc-timestamp', '')
        sig = self.headers.get('svc-signature', '')
        expected = hmac.new(SECRET, ts.encode() + b'.' + raw, hashlib.sha256).hexdigest()
        try:
            age = abs(time.time() - datetime.fromisoformat(ts.replace('Z', '+00:00')).timestamp())
        except ValueError:
            age = None
        ok = age is not None and age <= 300 and hmac.compare_digest(expected, sig)
        self.send_response(200 if ok else 401)
        self.end_headers()
        self.wfile.write(b'ok' if ok else b'no')
    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(('127.0.0.1', 0), Hook)  # the default listen backlog: 5
print(server.server_address[1], flush=True)
server.serve_forever()
`;

t.test(
  'a correct Python receiver (standard library, default backlog of 5) scores 100 %',
  { skip: python ? false : 'no python3 here' },
  async (t) => {
    const child = spawn('python3', ['-c', PYTHON_RECEIVER, SECRET], { stdio: ['ignore', 'pipe', 'inherit'] });
    t.teardown(() => void child.kill());
    const port = await new Promise<string>((resolve) =>
      child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())),
    );
    const grade = await gradeReceiver({
      transport: directTransport(`http://127.0.0.1:${port}/webhooks`, 10_000),
      secret: SECRET,
    });
    t.comment(`python receiver: ${grade.score} %`);
    t.same(failedChecks(grade), [], textReport(grade, 'python'));
    t.equal(grade.score, 100);
  },
);

t.test(
  'a receiver that accepts connections slowly (1.2 s behind) still passes the timestamp check: probes are signed as sent, 10 s inside the limit',
  async (t) => {
    const receiver = await nodeReceiver((req, res, verified) => setTimeout(() => plain(req, res, verified), 1200));
    t.teardown(receiver.close);
    const grade = await gradeReceiver({
      transport: directTransport(receiver.url, 10_000),
      secret: SECRET,
      only: ['timestamp-tolerance', 'signed-paid'],
    });
    t.same(failedChecks(grade), []);
  },
);

/** Verifies, then holds one lock for everything: requests are answered one at a time, `holdMs` each. */
function lockingReceiver(secret: string, holdMs: number) {
  let queue = Promise.resolve();
  return nodeReceiver((req, res, verified) => {
    queue = queue.then(
      () =>
        new Promise((resolve) =>
          setTimeout(() => {
            plain(req, res, verified);
            resolve();
          }, holdMs),
        ),
    );
  }, secret);
}

t.test(
  'a receiver that holds one global lock after verifying fails concurrency, directly and through the relay',
  async (t) => {
    // Scaled down: a 100 ms lock against a 1 s attempt limit (the simulator's is 5 s, with 400 ms it is the same story).
    const receiver = await lockingReceiver(SECRET, 100);
    t.teardown(receiver.close);
    const direct = await gradeReceiver({
      transport: directTransport(receiver.url, 10_000),
      secret: SECRET,
      maxLatencyMs: 1000,
    });
    t.comment(`locking receiver, directly: ${direct.score} %`);
    t.same(failedChecks(direct), ['concurrency'], 'directly: concurrency alone');
    t.match(textReport(direct, receiver.url), /over the 1000 ms a delivery attempt may take/);

    const server = await startTestServer(t);
    const account = await registerAccount(server.api);
    const relayed = await lockingReceiver(account.key.webhook_secret, 100);
    t.teardown(relayed.close);
    const relay = startRelayClient({
      baseUrl: server.baseUrl,
      token: account.key.token,
      forwardTo: relayed.url,
      log: () => undefined,
    });
    t.teardown(() => relay.stop());
    await relay.connected;
    const viaRelay = await gradeReceiver({
      transport: relayTransport(server.baseUrl, account.key.token, relayed.url, 10_000),
      secret: account.key.webhook_secret,
      maxLatencyMs: 1000,
      only: ['concurrency', 'signed-paid', 'rejects-bad-signature'],
    });
    t.same(failedChecks(viaRelay), ['concurrency'], 'through the relay: concurrency');
  },
);

t.test(
  "a receiver that insists on each session's events in order (as INTERFACE.md has the sender deliver them) passes sessions-interleaved",
  async (t) => {
    const lastOf = new Map<string, string>();
    const order = ['payment_session.created', 'payment_session.paid', 'payment_session.accredited'];
    const receiver = await nodeReceiver((_req, res, verified, raw) => {
      if (!verified) return void res.writeHead(401).end();
      const body = JSON.parse(raw) as { event: string; data: { session_id: string } };
      const at = order.indexOf(body.event);
      const before = order.indexOf(lastOf.get(body.data.session_id) ?? '');
      if (at !== -1 && at < before) return void res.writeHead(409).end('out of order');
      if (at !== -1) lastOf.set(body.data.session_id, body.event);
      res.writeHead(200).end('ok');
    });
    t.teardown(receiver.close);
    for (let run = 0; run < 5; run += 1) {
      const grade = await gradeReceiver({
        transport: directTransport(receiver.url, 5_000),
        secret: SECRET,
        only: ['sessions-interleaved'],
      });
      t.same(failedChecks(grade), [], `run ${run + 1}: in order within each session`);
    }
  },
);

t.test('a receiver that drops connections under load fails concurrency only, not its signature checks', async (t) => {
  let inFlight = 0;
  const receiver = await nodeReceiver((req, res, verified) => {
    inFlight += 1;
    if (inFlight > 4) {
      inFlight -= 1;
      return void req.socket.destroy();
    }
    setTimeout(() => {
      inFlight -= 1;
      plain(req, res, verified);
    }, 30);
  });
  t.teardown(receiver.close);
  const grade = await gradeReceiver({ transport: directTransport(receiver.url, 10_000), secret: SECRET });
  t.comment(`receiver dropping connections under load: ${grade.score} %`);
  t.same(failedChecks(grade), ['concurrency']);
  t.equal(
    grade.checks.find((check) => check.id === 'signature-over-raw-bytes')?.outcome,
    'pass',
    'the raw-bytes check is graded, and passes',
  );
});

t.test('an unreachable receiver is named as such, directly and through the relay', async (t) => {
  const url = await closedPort();
  const direct = await gradeReceiver({
    transport: directTransport(url, 5_000),
    secret: SECRET,
    only: ['signed-paid', 'rejects-bad-signature'],
  });
  t.match(direct.unreachable, /unreachable: nothing answers at .* \(ECONNREFUSED\)/);
  t.match(textReport(direct, url), /UNREACHABLE: no delivery reached the receiver/);

  const server = await startTestServer(t);
  const account = await registerAccount(server.api);
  const relay = startRelayClient({
    baseUrl: server.baseUrl,
    token: account.key.token,
    forwardTo: url,
    log: () => undefined,
  });
  t.teardown(() => relay.stop());
  await relay.connected;
  const viaRelay = await gradeReceiver({
    transport: relayTransport(server.baseUrl, account.key.token, url, 10_000),
    secret: account.key.webhook_secret,
    only: ['signed-paid', 'rejects-bad-signature'],
  });
  t.match(
    viaRelay.unreachable,
    /unreachable through the relay: local receiver unreachable/,
    'not "got 502" on each probe',
  );
});

t.test('a receiver that crashes is reported as stopped, after the last delivery it answered', async (t) => {
  let answered = 0;
  const receiver = await nodeReceiver((req, res, verified) => {
    plain(req, res, verified);
    answered += 1;
    if (answered === 8) {
      res.on('finish', () => {
        receiver.server.close();
        receiver.server.closeAllConnections();
      });
    }
  });
  const grade = await gradeReceiver({ transport: directTransport(receiver.url, 5_000), secret: SECRET });
  t.match(
    grade.stoppedAfter,
    { check: 'rejects-bad-signature', probe: 'a field added to the body' },
    'the eighth delivery: the second of the bad-signature check',
  );
  t.match(
    textReport(grade, receiver.url),
    /STOPPED: the receiver answered until "a field added to the body" \(check rejects-bad-signature\)/,
  );
});

t.test('every signed delivery refused with 401 gives a hint at the signed string and the key', async (t) => {
  // A common mistake: the secret without its prefix, as hex bytes.
  const receiver = await nodeReceiver(plain, Buffer.from(SECRET.replace('whsec_', ''), 'hex').toString('latin1'));
  t.teardown(receiver.close);
  const grade = await gradeReceiver({
    transport: directTransport(receiver.url, 5_000),
    secret: SECRET,
    only: ['signed-paid', 'signed-created', 'rejects-bad-signature'],
  });
  t.match(
    grade.hints.join(' '),
    /timestamp \+ "\." \+ the raw body .* whole webhook secret, "whsec_" prefix included, as UTF-8/,
  );
});

t.test('the JUnit file is valid XML whatever the receiver answers', async (t) => {
  const receiver = await nodeReceiver(
    (_req, res) => void res.writeHead(500).end('bad \ufffe \uffff \ud800 \u0001 <&> end'),
  );
  t.teardown(receiver.close);
  const grade = await gradeReceiver({
    transport: directTransport(receiver.url, 5_000),
    secret: SECRET,
    only: ['signed-paid'],
  });
  const xml = junitReport(grade, receiver.url);
  t.notMatch(xml, /[\ufffe\uffff\u0001]|[\ud800-\udbff](?![\udc00-\udfff])/, 'no character XML 1.0 cannot hold');
  t.match(xml, /bad \ufffd \ufffd \ufffd \ufffd &lt;&amp;&gt; end/);
});

t.test('curl lines sign anew when run, with the same bend', async (t) => {
  const example = await startExampleReceiver({ secret: SECRET });
  t.teardown(() => example.server.close());
  const grade = await gradeReceiver({
    transport: directTransport(example.url, 5_000),
    secret: SECRET,
    only: ['timestamp-tolerance', 'rejects-bad-signature'],
  });
  const probes = grade.checks.flatMap((check) => check.probes);
  const status = async (name: string) => {
    const probe = probes.find((each) => each.name === name)!;
    // Not spawnSync: the receiver answering it runs in this process.
    const shell = await run('sh', ['-c', `${curlOf(example.url, probe)} -o /dev/null -w '%{http_code}'`], {
      env: { ...process.env, SVC_WEBHOOK_SECRET: SECRET },
      encoding: 'utf8',
    });
    return shell.stdout.trim();
  };
  t.equal(await status('signed 4 min 50 s ago'), '200', 'minutes later, still 4 min 50 s old when run: accepted');
  t.equal(await status('signed 5 min 10 s ago'), '401', 'still stale when run: refused');
  t.equal(await status('signed with another secret'), '401');
  t.equal(await status('one byte of the body changed'), '401');
});

t.test('usage errors exit 2 with a message, never a stack trace', async (t) => {
  const url = 'http://127.0.0.1:9/webhooks';
  const cases: Array<[string[], RegExp, Record<string, string>?]> = [
    [['--url', url, '--secret-file', '/nonexistent/secret'], /--secret-file \/nonexistent\/secret: no such file/],
    [
      // A folder that can be made is made (a fresh clone has no reports/); one under a file cannot.
      ['--url', url, '--secret', SECRET, '--junit', '/proc/version/dir/junit.xml'],
      /--junit \/proc\/version\/dir\/junit\.xml: cannot write there \(E[A-Z]+\)/,
    ],
    [['--url', url], /SVC_WEBHOOK_SECRET is empty: it should hold the webhook secret/, { SVC_WEBHOOK_SECRET: ' ' }],
    [
      ['--url', url],
      /give the webhook secret with --secret-file FILE or SVC_WEBHOOK_SECRET/,
      { SVC_WEBHOOK_SECRET: '' },
    ],
    // A bare figure was seconds, and milliseconds once before: one no one means in seconds is refused with the hint.
    [
      ['--url', url, '--secret', SECRET, '--request-timeout', '10000'],
      /--request-timeout takes a duration with its unit; 10000 seconds would be over an hour \(for 10000 ms, give 10000ms\)/,
    ],
    [
      ['--url', 'ftp://example.com/hooks', '--secret', SECRET],
      /--url must be an http:\/\/ or https:\/\/ URL, not ftp:\/\//,
    ],
  ];
  for (const [args, message, env] of cases) {
    const result = await run(process.execPath, ['--import', 'tsx', cli, 'receiver', ...args], {
      env: { ...process.env, ...env },
    }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    t.equal(result?.code, 2, args.join(' '));
    t.match(result?.stderr, message);
    t.notMatch(result?.stderr, /\n\s+at /, 'no stack trace');
  }
});

t.test('the report says what is not graded', async (t) => {
  const example = await startExampleReceiver({ secret: SECRET });
  t.teardown(() => example.server.close());
  const dir = t.testdir();
  const result = await run(
    process.execPath,
    [
      '--import',
      'tsx',
      cli,
      'receiver',
      '--url',
      example.url,
      '--checks',
      'signed-paid',
      '--report',
      join(dir, 'grade.json'),
    ],
    { env: { ...process.env, SVC_WEBHOOK_SECRET: SECRET } },
  );
  t.match(result.stdout, /note: Deduplication is not graded/);
  t.match(JSON.parse(await readFile(join(dir, 'grade.json'), 'utf8')), { not_graded: /Deduplication is not graded/ });
});
