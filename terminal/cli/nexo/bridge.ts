import { readFileSync } from 'node:fs';
import type { BridgeCommand } from '../dialect-commands.js';
import { integer, usageError } from '../io.js';
import { hostAndPort } from '../lines.js';
import { privateSecret } from '../private-file.js';
import { NEXO_PASSPHRASE, NEXO_PORT } from '../../protocol/nexo/key-options.js';
import { NexoClient } from '../../bridge/nexo/nexo-client.js';
import { endpointStream, NEXO_DEFAULTS, nexoDialect } from '../../bridge/nexo/nexo-dialect.js';
import { NexoJournal } from '../../bridge/nexo/nexo-journal.js';

const USAGE = `  --dialect nexo          the device is an Adyen terminal (Terminal API, nexo over
                          HTTPS) and the bridge its cash register
                          (docs/terminal/nexo.md):
      svc-terminal bridge --dialect nexo --host HOST[:PORT] --poiid POIID
        --key-identifier ID --key-version N --passphrase-file FILE --ca FILE
        --serial SN --base-url URL [options]
                          --host is the terminal's LAN address (port ${NEXO_PORT}
                          unless given); --ca the root its certificate chains
                          to (the emulator's ca.pem, or Adyen's terminal root);
                          the passphrase from --passphrase-file (readable by its
                          owner only) or SVC_NEXO_PASSPHRASE; --plaintext sends
                          unencrypted (test terminals only). Each PENDING order
                          is a Payment (SaleID: --serial), a decline stays
                          PENDING until svc-terminal retry, a VOID_PENDING order
                          a Reversal, a close a Reconciliation and one
                          settlement. Every request is journaled with its
                          ServiceID before it is sent and asked about
                          (TransactionStatus) after a fault. Answer timeout
                          ${NEXO_DEFAULTS.answerTimeoutMs / 1000}s unless --answer-timeout.
`;

/** svc-terminal bridge --dialect nexo. */
export const nexoBridgeCommand: BridgeCommand = {
  options: {
    host: { type: 'string' },
    poiid: { type: 'string' },
    'key-identifier': { type: 'string' },
    'key-version': { type: 'string' },
    'passphrase-file': { type: 'string' },
    ca: { type: 'string' },
    plaintext: { type: 'boolean' },
  },
  usage: USAGE,
  configure: async (values, { io, stateDir }) => {
    const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
    const plaintext = values.plaintext === true;
    const required = ['host', 'poiid', 'ca', ...(plaintext ? [] : ['key-identifier'])];
    const missing = required.filter((name) => text(name) === undefined);
    if (missing.length > 0)
      throw usageError(`bridge --dialect nexo needs ${missing.map((name) => `--${name}`).join(', ')}`);
    const address = hostAndPort(text('host')!, `an Adyen terminal listens on ${NEXO_PORT}`, NEXO_PORT);
    let ca: string;
    try {
      ca = readFileSync(text('ca')!, 'utf8');
    } catch (error) {
      throw usageError(
        `--ca ${text('ca')}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
      );
    }
    const key = plaintext
      ? undefined
      : {
          keyIdentifier: text('key-identifier')!,
          keyVersion: integer('key-version', text('key-version'), 1)!,
          passphrase: privateSecret(NEXO_PASSPHRASE, values['passphrase-file'], io, true)!,
        };
    const client = new NexoClient({ host: address.host, port: address.port, ca, ...(key ? { key } : {}) });
    return {
      definition: nexoDialect({
        journal: await NexoJournal.open(stateDir),
        client,
        poiid: text('poiid')!,
        saleId: String(values.serial),
      }),
      line: { describe: `${client.describe} (${text('poiid')}${key ? '' : ', plaintext'})`, open: endpointStream },
    };
  },
};
