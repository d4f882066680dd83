import { seededRandom } from '../../../contracts/common/seeded-random.js';
import type { EmulateCommand, OptionValues } from '../dialect-commands.js';
import { duration, integer, logTo, stopped, usageError, type CliIo } from '../io.js';
import { hostAndPort } from '../lines.js';
import { operatorChannel } from '../operator.js';
import { privateSecret } from '../private-file.js';
import { NEXO_API_KEY, NEXO_PASSPHRASE, NEXO_PORT } from '../../protocol/nexo/key-options.js';
import { terminalTls } from '../../device/nexo/certificates.js';
import { listenNexo, type ListenerFaults } from '../../device/nexo/nexo-listener.js';
import { NEXO_CARD_DELAY_MS, NexoTerminal } from '../../device/nexo/nexo-terminal.js';
import { periodCount } from '../../device/nexo/nexo-state.js';

// svc-terminal emulate --dialect nexo: an Adyen terminal's Terminal API on
// HTTPS (docs/terminal/nexo.md).

const USAGE = `  --dialect nexo      an Adyen payment terminal's Terminal API (nexo over HTTPS,
                      docs/terminal/nexo.md):
      svc-terminal emulate --dialect nexo --listen HOST[:PORT] --poiid POIID
        --key-identifier ID --key-version N --passphrase-file FILE --tls-dir DIR
        [--card-delay D] [--state FILE] [--seed N --clock ISO]
        [--require-encryption] [--api-key-file FILE]
        [--drop-answer N] [--refuse N] [--delay D]
                      HTTPS on HOST:PORT (port ${NEXO_PORT} unless given), POST /nexo.
                      --tls-dir holds ca.pem, the root a cash register trusts
                      (made when absent, its key 0600); the terminal's
                      certificate is CN <POIID>.test.terminal.adyen.com.
                      The passphrase comes from --passphrase-file (readable
                      by its owner only) or SVC_NEXO_PASSPHRASE. It answers
                      Diagnosis, Payment (amounts ending 124-128, 134 are
                      refused as on Adyen's test terminals), Abort,
                      TransactionStatus, Reversal and Reconciliation, after
                      --card-delay (default ${NEXO_CARD_DELAY_MS}ms); plaintext too unless
                      --require-encryption. --api-key-file (or
                      SVC_NEXO_API_KEY) serves the cloud shape, POST /sync
                      with X-API-Key. On stdin: status.
      --drop-answer N   carry out the Nth payment, reversal or reconciliation
                        and cut the connection instead of answering
      --refuse N        cut the Nth request's connection before reading it
`;

export const nexoEmulateCommand: EmulateCommand = {
  options: {
    listen: { type: 'string' },
    poiid: { type: 'string' },
    'key-identifier': { type: 'string' },
    'key-version': { type: 'string' },
    'passphrase-file': { type: 'string' },
    'tls-dir': { type: 'string' },
    'card-delay': { type: 'string' },
    state: { type: 'string' },
    seed: { type: 'string' },
    clock: { type: 'string' },
    'require-encryption': { type: 'boolean' },
    'api-key-file': { type: 'string' },
    'drop-answer': { type: 'string' },
    refuse: { type: 'string' },
    delay: { type: 'string' },
    control: { type: 'string' },
    debug: { type: 'boolean' },
  },
  usage: USAGE,
  run: emulateNexo,
};

/** An Adyen POIID: the model and the serial, as the certificate's name needs them. */
const POIID = /^[A-Za-z0-9]+-[A-Za-z0-9]+$/;

async function emulateNexo(values: OptionValues, io: CliIo): Promise<void> {
  const log = logTo(io);
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const missing = ['listen', 'poiid', 'key-identifier', 'tls-dir'].filter((name) => text(name) === undefined);
  if (missing.length > 0)
    throw usageError(`emulate --dialect nexo needs ${missing.map((name) => `--${name}`).join(', ')}`);
  const poiid = text('poiid')!;
  if (!POIID.test(poiid))
    throw usageError(`--poiid is MODEL-SERIAL, letters and digits (as V400m-324688179), got ${JSON.stringify(poiid)}`);
  const address = hostAndPort(text('listen')!, `Adyen's terminals listen on ${NEXO_PORT}`, NEXO_PORT);
  const passphrase = privateSecret(NEXO_PASSPHRASE, values['passphrase-file'], io, true)!;
  const apiKey = privateSecret(NEXO_API_KEY, values['api-key-file'], io, false);
  const seed = integer('seed', text('seed'));
  const clock = text('clock') === undefined ? undefined : new Date(text('clock')!);
  if (clock && Number.isNaN(clock.getTime()))
    throw usageError(`--clock takes an ISO 8601 time, got ${JSON.stringify(text('clock'))}`);
  const faults: ListenerFaults = {};
  const dropAnswer = integer('drop-answer', text('drop-answer'));
  if (dropAnswer !== undefined) faults.dropAnswer = dropAnswer;
  const refuse = integer('refuse', text('refuse'));
  if (refuse !== undefined) faults.refuse = refuse;
  const delay = duration(io, values, 'delay');
  if (delay !== undefined) faults.delayMs = delay;
  const terminal = new NexoTerminal({
    poiid,
    cardDelayMs: duration(io, values, 'card-delay', NEXO_CARD_DELAY_MS)!,
    ...(text('state') ? { statePath: text('state')! } : {}),
    ...(seed !== undefined ? { random: seededRandom(seed) } : {}),
    ...(clock ? { clock: () => clock } : {}),
    log,
  });
  const tls = terminalTls(text('tls-dir')!, poiid, address.host);
  let listener;
  try {
    listener = await listenNexo(address.host, address.port, {
      terminal,
      key: {
        keyIdentifier: text('key-identifier')!,
        keyVersion: integer('key-version', text('key-version'), 1)!,
        passphrase,
      },
      requireEncryption: values['require-encryption'] === true,
      ...(apiKey ? { apiKey } : {}),
      tls,
      faults,
      ...(values.debug ? { log } : { log: (line: string) => (line.startsWith('fault') ? log(line) : undefined) }),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw usageError(
      `cannot listen on ${address.host}:${address.port}: ${code === 'EADDRINUSE' ? 'the port is in use' : (error as Error).message}`,
    );
  }
  log(
    `nexo terminal ${poiid} listening on https://${address.host}:${listener.address.port}/nexo; the cash register trusts ${tls.caPath}${apiKey ? '; cloud shape on /sync' : ''}; type "status"`,
  );
  const operator = await operatorChannel(
    io,
    (line) => {
      const state = terminal.snapshot;
      return line === 'status'
        ? `${poiid}: ${terminal.busy ? 'busy with a payment' : 'idle'}; reconciliation period ${state.reconciliationId}, ${periodCount(state)} transaction(s) in it`
        : 'commands: status';
    },
    text('control'),
  );
  log(`operator commands: ${operator.describe}`);
  await stopped(io.stop);
  await operator.close();
  await listener.close();
}
