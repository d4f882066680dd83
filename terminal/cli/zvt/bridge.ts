import type { BridgeCommand } from '../dialect-commands.js';
import { duration, usageError } from '../io.js';
import { hostAndPort, serialLineOf, tcpLine } from '../lines.js';
import { T4_MS } from '../../bridge/zvt/ecr-session.js';
import { ZvtJournal } from '../../bridge/zvt/zvt-journal.js';
import { ZVT_DEFAULTS, zvtDialect } from '../../bridge/zvt/zvt-dialect.js';

/** svc-terminal bridge --dialect zvt: the bridge as a ZVT terminal's cash register, on a serial line (9600 8N2) or over TCP. */
export const zvtBridgeCommand: BridgeCommand = {
  options: {
    path: { type: 'string' },
    host: { type: 'string' },
    baud: { type: 'string' },
    password: { type: 'string' },
    t4: { type: 'string' },
    't4-ms': { type: 'string' },
  },
  usage: `  --dialect zvt           the device is a ZVT payment terminal (PA00P015) and the
                          bridge its cash register (docs/terminal/zvt.md):
                          on a serial line (--path, 9600
                          8N2) or over TCP (--host HOST:PORT, usually port
                          20007). It registers (--password, default 000000),
                          pays each PENDING order in the order's currency,
                          reverses a VOID_PENDING one by its receipt number
                          (by refund once an end of day closed it), and runs
                          the end of day as the batch close (one settlement).
                          Every transaction is journaled before it goes on the
                          line; after a kill the terminal's repeat receipt
                          settles it, never a guess.
  --t4 D                  zvt: how long the terminal may stay silent while it
                          is master (T4, default ${T4_MS / 1000}s)
`,
  configure: async (values, { io, stateDir }) => {
    if (typeof values.host === 'string' && values.path !== undefined)
      throw usageError('--host is for ZVT over TCP, instead of --path');
    if (values.host === undefined && values.path === undefined) throw usageError('bridge needs --path or --host');
    if (values.password !== undefined && !/^\d{6}$/.test(String(values.password)))
      throw usageError("--password is the ZVT terminal's, 6 digits");
    const tcp =
      typeof values.host === 'string' ? hostAndPort(values.host, "a ZVT terminal's port is usually 20007") : undefined;
    return {
      definition: zvtDialect({
        journal: await ZvtJournal.open(stateDir),
        transport: tcp ? 'tcp' : 'serial',
        password: typeof values.password === 'string' ? values.password : ZVT_DEFAULTS.password,
        masterTimeoutMs: duration(io, values, 't4', T4_MS)!,
      }),
      line: tcp ? tcpLine(tcp) : serialLineOf(values, 9600, 2),
    };
  },
};
