import type { BridgeCommand } from '../../cli/dialect-commands.js';
import { duration } from '../../cli/io.js';
import { serialLineOf } from '../../cli/lines.js';
import { SaleJournal } from './sale-journal.js';
import { TRANSBANK_DEFAULTS, transbankDialect } from './transbank-dialect.js';

/** svc-terminal bridge --dialect transbank: the bridge as a POS Integrado's cash register, on a serial line. */
export const transbankBridgeCommand: BridgeCommand = {
  options: {
    path: { type: 'string' },
    baud: { type: 'string' },
    'sale-timeout': { type: 'string' },
    'sale-timeout-ms': { type: 'string' },
  },
  usage: '',
  configure: async (values, { io, stateDir }) => ({
    definition: transbankDialect({
      journal: await SaleJournal.open(stateDir),
      saleTimeoutMs: duration(io, values, 'sale-timeout', TRANSBANK_DEFAULTS.saleTimeoutMs)!,
    }),
    line: serialLineOf(values, 115200, 1),
  }),
};
