#!/usr/bin/env node
// svc-relay: forwards the simulator's webhooks for local and private URLs
// to a receiver on this machine. `svc-relay --help` says how.
import { parseArgs } from 'node:util';
import { API_TOKEN, howToGive, readCredential } from '../../contracts/cli/credential.js';
import { startRelayClient } from '../../contracts/clients/relay-client.js';
import { defaultStateFile, readCursor, saveCursor } from './relay-state.js';
import { durationOf } from '../../contracts/cli/duration.js';
import { versionLine } from '../../contracts/cli/version.js';
import { onStopRequest } from '../../contracts/cli/stop-signals.js';
import { parseErrorInWords } from '../../contracts/cli/parse-words.js';

const usage = `usage: svc-relay --base-url URL [--token-file FILE] --forward-to http://localhost:PORT/path
                 [--state FILE] [--backfill DURATION]

Opens an outgoing WebSocket to the simulator's /relay with your API token
(not the console token), POSTs every webhook routed to the relay to the
local receiver with its exact body bytes and headers, and reports the
receiver's status back. Prints one line per delivery. Reconnects with
backoff when the connection drops, or when it stops answering pings
(within 20 s); stops when the token is refused or another relay for the
same key takes over.

Nothing is lost while it is away (asleep, offline, stopped): it keeps a
cursor, the last position up to which the receiver answered every
delivery with a 2xx, and on connecting the simulator first resends, in
order, every delivery after it that never got one (same idempotency-key
and body, fresh svc-timestamp and signature), then goes on as usual.

  --base-url URL     the simulator, e.g. http://127.0.0.1:3000 (env SVC_BASE_URL)
  --token-file FILE  a file holding the API or login token, or SVC_TOKEN;
                     --token T works, with a warning (ps shows it)
  --forward-to URL   the local receiver, e.g. http://localhost:4000/webhooks
  --state FILE       where the cursor is kept (default: one file per base URL
                     and token under $XDG_STATE_HOME/svc-relay, or
                     ~/.local/state/svc-relay)
  --backfill DURATION  with no cursor kept yet, first resend what was missed
                     over the last DURATION (30m, 2h, at most 24h), 1000
                     deliveries at most, oldest first
  -h, --help         this text
`;

let values;
try {
  ({ values } = parseArgs({
    options: {
      'base-url': { type: 'string' },
      token: { type: 'string' },
      'token-file': { type: 'string' },
      'forward-to': { type: 'string' },
      state: { type: 'string' },
      backfill: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean' },
    },
  }));
} catch (error) {
  process.stderr.write(`svc-relay: ${parseErrorInWords(error)}\n(svc-relay --help says more)\n`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(usage);
  process.exit(0);
}
if (values.version) {
  process.stdout.write(versionLine('svc-relay'));
  process.exit(0);
}
const baseUrl = values['base-url'] ?? process.env.SVC_BASE_URL;
const given = readCredential(API_TOKEN, { flag: values.token, file: values['token-file'], env: process.env });
if ('error' in given) {
  process.stderr.write(`svc-relay: ${given.error}\n`);
  process.exit(2);
}
for (const warning of given.warnings) process.stderr.write(`svc-relay: warning: ${warning}\n`);
const token = given.value;
const forwardTo = values['forward-to'];
const missing = [
  !baseUrl && '--base-url',
  !token && `the token (${howToGive(API_TOKEN)})`,
  !forwardTo && '--forward-to',
].filter(Boolean);
if (missing.length > 0) {
  process.stderr.write(`svc-relay: missing ${missing.join(', ')}\n(svc-relay --help says more)\n`);
  process.exit(2);
}
for (const [name, value] of [
  ['--base-url', baseUrl],
  ['--forward-to', forwardTo],
] as const) {
  try {
    new URL(value!);
  } catch {
    process.stderr.write(`svc-relay: ${name} must be an absolute URL, got ${JSON.stringify(value)}\n`);
    process.exit(2);
  }
}

// A bare number was seconds here: still read so, with a warning giving its unit.
const backfillMs = durationOf(
  values,
  { name: 'backfill', bareUnit: 's', min: 1, max: 24 * 3_600_000 },
  undefined,
  (message) => {
    process.stderr.write(`svc-relay: ${message} (30m or 2h, at most 24h)\n`);
    process.exit(2);
  },
  (message) => process.stderr.write(`svc-relay: warning: ${message}\n`),
);
const stateFile = values.state ?? defaultStateFile(baseUrl!, token!);
const kept = readCursor(stateFile);
if ('warning' in kept) process.stderr.write(`svc-relay: warning: ${kept.warning}\n`);

// Lines of one turn of the event loop go out in one write: a write to a pipe
// blocks on Linux, and one per delivery was a tenth of the relay's CPU.
let lines: string[] = [];
const flush = () => {
  if (lines.length === 0) return;
  process.stdout.write(lines.join(''));
  lines = [];
};
const log = (line: string) => {
  if (lines.length === 0) setImmediate(flush);
  lines.push(`${line}\n`);
};
// The cursor moves with every delivery: kept at most five times a second (a kill loses only a few resends).
let unsaved: number | null = null;
let saving: NodeJS.Timeout | null = null;
const keep = () => {
  saving = null;
  if (unsaved !== null) saveCursor(stateFile, unsaved);
  unsaved = null;
};
const client = startRelayClient({
  baseUrl: baseUrl!,
  token: token!,
  forwardTo: forwardTo!,
  log,
  cursor: {
    position: kept.position,
    save: (position) => {
      unsaved = position;
      saving ??= setTimeout(keep, 200);
    },
  },
  ...(backfillMs ? { backfillMs } : {}),
});
log(kept.position === null ? `no cursor kept yet (${stateFile})` : `cursor ${kept.position} (${stateFile})`);
onStopRequest((why) => {
  log(`stopping (${why === 'SIGINT' ? 'Ctrl-C' : why})`);
  client.stop();
});
const { reason } = await client.finished;
if (saving) clearTimeout(saving);
keep();
const position = readCursor(stateFile).position;
log(
  reason === 'stopped'
    ? `stopped; ${position === null ? 'no cursor yet' : `cursor ${position}`} kept in ${stateFile}: what comes while the relay is away is sent when it starts again`
    : `stopped: ${reason}`,
);
flush();
process.exit(reason === 'stopped' ? 0 : 1);
