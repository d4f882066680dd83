// svc-contracts receiver: grades an integrator's webhook receiver against the receiver rules.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startRelayClient, type RelayClient } from '../clients/relay-client.js';
import { API_TOKEN, howToGive, readCredential, WEBHOOK_SECRET, type CredentialKind } from '../cli/credential.js';
import { CHECKS } from './checks.js';
import { gradeReceiver, NOT_GRADED } from './grade.js';
import { jsonReport, junitReport, textReport } from './report.js';
import { prepareReportFile } from '../cli/report-file.js';
import { directTransport, relayTransport, type Transport } from './transport.js';
import { durationOf } from '../cli/duration.js';
import { parseErrorInWords } from '../cli/parse-words.js';

const usage = `usage: svc-contracts receiver --url URL [--secret-file FILE] [options]

Sends a scripted series of webhook deliveries to your receiver and grades
each answer against the receiver rules (INTERFACE.md §7):
correctly signed events of every type acknowledged, retries
acknowledged, bad signatures and stale timestamps refused, the signature
checked over the raw bytes, unknown events and fields accepted, answers
within 5 s (p99 of 50), 20 deliveries at once, sessions interleaved.
Prints a table, then each failure with the request as curl and the answer.

  --url URL              the receiver, e.g. http://localhost:4000/webhooks
  --secret-file FILE     a file holding the account's webhook secret
                         (key.webhook_secret), or SVC_WEBHOOK_SECRET;
                         --secret whsec_… works, with a warning (ps shows it)
  --via-relay            deliver through the simulator's relay, as in a demo:
                         connects a relay client for the key that forwards to
                         --url (a running svc-relay for the same key is replaced
                         and stops; start it again afterwards); needs:
  --base-url URL         the simulator
  --token-file FILE      the account's API token, from a file or SVC_TOKEN
                         (--token T works, with a warning)
  --checks a,b           only these checks (see --list-checks)
  --list-checks          list the checks with their sources, and exit
  --request-timeout D    how long to wait for one answer, a duration with
                         its unit as everywhere (default 10s; the latency check grades
                         time, the others the status)
  --junit FILE           write JUnit XML (one test case per check) for CI
  --report FILE          write the full grade as JSON
  -h, --help             this text

Exit code: 0 when every required check passes, 1 when one fails, 2 for a
usage error.
`;

/** A credential as every command takes it; a malformed one is a usage error. */
function credential(kind: CredentialKind, flag: string | undefined, file: string | undefined): string | undefined {
  const answer = readCredential(kind, { flag, file, env: process.env });
  if ('error' in answer) return fail(answer.error);
  for (const warning of answer.warnings) process.stderr.write(`svc-contracts receiver: warning: ${warning}\n`);
  return answer.value;
}

function checkWritable(option: string, path: string): void {
  const problem = prepareReportFile(option, path);
  if (problem) fail(problem);
}

function fail(message: string): never {
  process.stderr.write(`svc-contracts receiver: ${message}\n(svc-contracts receiver --help says more)\n`);
  process.exit(2);
}

const OPTIONS = {
  url: { type: 'string' },
  secret: { type: 'string' },
  'secret-file': { type: 'string' },
  'via-relay': { type: 'boolean' },
  'base-url': { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  checks: { type: 'string' },
  'list-checks': { type: 'boolean' },
  'request-timeout': { type: 'string' },
  junit: { type: 'string' },
  report: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];

export async function receiverCli(argv: string[]): Promise<number> {
  let values: Values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS }));
  } catch (error) {
    fail(parseErrorInWords(error));
  }
  if (values.help) {
    process.stdout.write(usage);
    return 0;
  }
  if (values['list-checks']) {
    for (const check of CHECKS)
      process.stdout.write(
        `${check.id}${check.required ? '' : ' (advice)'}\n  ${check.title}\n  source: ${check.source}\n`,
      );
    process.stdout.write(`\nnot graded: ${NOT_GRADED}\n`);
    return 0;
  }
  const run = runSettings(values);
  const opened = await openTransport(values, run.url, run.timeoutMs);
  if (!opened) return 1;
  try {
    return await grade(values, run, opened.transport);
  } finally {
    opened.relay?.stop();
  }
}

/** What a run needs from its options, each checked (a mistake exits 2 saying which). */
function runSettings(values: Values): { url: string; secret: string; timeoutMs: number; only?: string[] } {
  const url = values.url ?? fail('--url is required');
  if (!URL.canParse(url)) fail('--url must be an absolute URL');
  if (!['http:', 'https:'].includes(new URL(url).protocol))
    fail(`--url must be an http:// or https:// URL, not ${new URL(url).protocol}//`);
  const secret =
    credential(WEBHOOK_SECRET, values.secret, values['secret-file']) ??
    fail(`${howToGive(WEBHOOK_SECRET)} (the account's key.webhook_secret, whsec_…)`);
  // Report files are checked before the run, so a typo does not cost a whole run and a stack trace.
  for (const option of ['junit', 'report'] as const) if (values[option]) checkWritable(`--${option}`, values[option]);
  // It was milliseconds here once, then bare seconds: a bare figure no one means in seconds is refused with the hint.
  const bare = values['request-timeout'];
  if (bare !== undefined && /^\d+(\.\d+)?$/.test(bare) && Number(bare) > 3600)
    fail(
      `--request-timeout takes a duration with its unit; ${bare} seconds would be over an hour (for ${bare} ms, give ${bare}ms)`,
    );
  const timeoutMs = durationOf(
    values,
    { name: 'request-timeout', bareUnit: 's', min: 100, max: 3_600_000 },
    10_000,
    fail,
    (message) => process.stderr.write(`svc-contracts receiver: warning: ${message}\n`),
  )!;
  const only = values.checks
    ?.split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  const unknown = only?.filter((id) => !CHECKS.some((check) => check.id === id)) ?? [];
  if (unknown.length > 0) fail(`unknown checks: ${unknown.join(', ')} (see --list-checks)`);
  return { url, secret, timeoutMs, ...(only ? { only } : {}) };
}

/** The way to the receiver: straight, or through the account's relay (connected first); null when the relay did not connect. */
async function openTransport(
  values: Values,
  url: string,
  timeoutMs: number,
): Promise<{ transport: Transport; relay?: RelayClient } | null> {
  if (!values['via-relay']) return { transport: directTransport(url, timeoutMs) };
  const baseUrl = values['base-url'] ?? fail('--via-relay needs --base-url');
  const token =
    credential(API_TOKEN, values.token, values['token-file']) ??
    fail(`--via-relay needs the account's API token: ${howToGive(API_TOKEN)}`);
  const relay = startRelayClient({
    baseUrl,
    token,
    forwardTo: url,
    log: (line) => process.stderr.write(`relay: ${line}\n`),
  });
  const connected = await Promise.race([
    relay.connected.then(() => true),
    relay.finished.then(() => false),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), 10_000).unref()),
  ]);
  if (!connected) {
    relay.stop();
    process.stderr.write(`svc-contracts receiver: could not connect a relay to ${baseUrl}\n`);
    return null;
  }
  return { transport: relayTransport(baseUrl, token, url, timeoutMs), relay };
}

/** Runs the checks with progress on stderr, the report on stdout and in the files asked for; the exit code. */
async function grade(
  values: Values,
  run: { url: string; secret: string; only?: string[] },
  transport: Transport,
): Promise<number> {
  let done = 0;
  const total = run.only?.length ?? CHECKS.length;
  const graded = await gradeReceiver({
    transport,
    secret: run.secret,
    ...(run.only ? { only: run.only } : {}),
    onCheck: (check) => process.stderr.write(`checked ${check.id} (${(done += 1)} of ${total})\n`),
  });
  process.stdout.write(textReport(graded, run.url));
  try {
    if (values.junit) writeFileSync(values.junit, junitReport(graded, run.url));
    if (values.report) writeFileSync(values.report, jsonReport(graded, run.url));
  } catch (error) {
    process.stderr.write(`svc-contracts receiver: could not write a report: ${(error as Error).message}\n`);
    return 1;
  }
  return graded.passed ? 0 : 1;
}
