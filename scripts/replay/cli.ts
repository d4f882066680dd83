#!/usr/bin/env node
// svc-replay (npm run replay --) --base-url URL --terminal SN --secret-file FILE FILES...
import { once } from 'node:events';
import { API_TOKEN, readCredential, TERMINAL_SECRET, type CredentialKind } from '../../contracts/cli/credential.js';
import { EmulatedTerminal } from '../../terminal/device/svc/emulated-terminal.js';
import { Link } from '../../terminal/protocol/link.js';
import { openSerial } from '../../terminal/serial-port.js';
import { commandLine } from '../cli-args.js';
import { loadBatches, replayBatches } from './replay.js';
import { exitUnlessAnswering } from '../../contracts/cli/no-answer.js';

const usage = `usage: svc-replay --base-url URL --terminal SN [--secret-file FILE] FILES...
       svc-replay --base-url URL --terminal SN --merchant-id M [--merchant-token-file FILE] FILES...
       svc-replay --via-serial PATH --terminal SN FILES...

(In a checkout, npm run replay -- … runs the same.)

Signs and sends the settlement batches of FILES (fixtures/batches/*.json) as
terminal SN would, one line per settlement (created, replayed, conflict,
rejected with the reason), then a summary. Exit code 0 when every settlement
was created or replayed, or refused as its file intends (a file's "intended"
list: edge-cases.json shows a conflict on purpose); 1 otherwise; 2 for a
usage error.

  --base-url URL        the server
  --terminal SN         the terminal to replay as (each settlement's terminal is set to it)
  --secret-file FILE    a file holding the terminal's secret (64 hex), or
                        SVC_TERMINAL_SECRET; --secret HEX works, with a
                        warning: npm prints the command line, and ps shows it
  --merchant-id M       without a secret: provision SN for this merchant
                        first and use its new secret, with the API token from
  --merchant-token-file FILE  a file, or SVC_TOKEN (--merchant-token T works,
                        with the same warning)
  --via-serial PATH     play the terminal on the serial line PATH instead: the
                        batches become its records, and the bridge on the other
                        end carries them to the server (see terminal/README.md)

Exit status: 0 every settlement as expected, 1 one was not, 2 a usage
error, 3 the server does not answer.
`;

const {
  values,
  positionals: files,
  fail,
} = commandLine('svc-replay', usage, {
  'base-url': { type: 'string' },
  terminal: { type: 'string' },
  secret: { type: 'string' },
  'secret-file': { type: 'string' },
  'merchant-token': { type: 'string' },
  'merchant-token-file': { type: 'string' },
  'merchant-id': { type: 'string' },
  'via-serial': { type: 'string' },
});
if (!values.terminal) fail('--terminal is required');
if (files.length === 0) fail('name at least one batch file');

const bar = (done: number, total: number) => {
  if (!process.stderr.isTTY) return;
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(
    `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}${done === total ? '\n' : ''}`,
  );
};
const out = (line: string) => {
  if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
  process.stdout.write(`${line}\n`);
};

if (values['via-serial']) {
  const items = await loadBatches(files, values.terminal!).catch((error: Error) => fail(error.message));
  const port = await openSerial(values['via-serial']).catch((error: Error) =>
    fail(`cannot open ${values['via-serial']}: ${error.message}`),
  );
  const device = new EmulatedTerminal({ serial: values.terminal!, log: (line) => out(line) });
  device.attach(new Link(port));
  for (const { settlement } of items) device.queueSettlement(settlement);
  out(
    `${items.length} settlements queued on ${values['via-serial']} as terminal ${values.terminal}; waiting for the bridge to collect them`,
  );
  while (device.snapshot.records.length > 0) {
    bar(items.length - device.snapshot.records.length, items.length);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  bar(items.length, items.length);
  out(`${items.length} settlements collected and confirmed by the bridge (the server had each one)`);
  port.close();
  await once(port, 'close');
  process.exit(0);
}

if (!values['base-url']) fail('--base-url is required');
const MERCHANT_TOKEN: CredentialKind = { ...API_TOKEN, flag: '--merchant-token', fileFlag: '--merchant-token-file' };
/** A credential from its file, its variable or its flag (warned about); a malformed one is a usage error, before anything is sent. */
const credential = (kind: CredentialKind, flag: string | undefined, file: string | undefined): string | undefined => {
  const answer = readCredential(kind, { flag, file, env: process.env });
  if ('error' in answer) return fail(answer.error);
  for (const warning of answer.warnings) process.stderr.write(`replay: warning: ${warning}\n`);
  return answer.value;
};
let secret = credential(TERMINAL_SECRET, values.secret, values['secret-file']);
await exitUnlessAnswering('svc-replay', values['base-url']!);
if (!secret) {
  const merchantToken = values['merchant-id']
    ? credential(MERCHANT_TOKEN, values['merchant-token'], values['merchant-token-file'])
    : undefined;
  if (!merchantToken || !values['merchant-id'])
    fail(
      "give the terminal's secret (--secret-file FILE or SVC_TERMINAL_SECRET), or --merchant-id with an API token (--merchant-token-file FILE or SVC_TOKEN) to provision the terminal",
    );
  const response = await fetch(
    new URL(`/api/v1/merchants/${encodeURIComponent(values['merchant-id']!)}/pos-terminals`, values['base-url']),
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${merchantToken}` },
      body: JSON.stringify({ serialNumber: values.terminal }),
    },
  ).catch((error: Error) => fail(`cannot reach ${values['base-url']}: ${error.message}`));
  const body = (await response.json().catch(() => ({}))) as { secret?: string; message?: string };
  if (response.status !== 201)
    fail(
      `provisioning ${values.terminal} failed: ${response.status} ${body.message ?? ''}${response.status === 409 ? ' (already provisioned: give its secret with --secret-file or SVC_TERMINAL_SECRET)' : ''}`,
    );
  secret = body.secret!;
  out(`provisioned ${values.terminal}; its secret (shown once): ${secret}`);
}
const { exitCode } = await replayBatches({
  baseUrl: values['base-url']!,
  terminal: values.terminal!,
  secret: secret!,
  files,
  out,
  progress: bar,
}).catch((error: Error) => fail(error.message));
process.exit(exitCode);
