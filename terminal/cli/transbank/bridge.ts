import type { BridgeCommand } from '../dialect-commands.js';
import { duration } from '../io.js';
import { serialLineOf } from '../lines.js';
import { SaleJournal } from '../../bridge/transbank/sale-journal.js';
import { TRANSBANK_DEFAULTS, transbankDialect } from '../../bridge/transbank/transbank-dialect.js';

/** svc-terminal bridge --dialect transbank: the bridge as a POS Integrado's cash register, on a serial line. */
export const transbankBridgeCommand: BridgeCommand = {
  options: {
    path: { type: 'string' },
    baud: { type: 'string' },
    'sale-timeout': { type: 'string' },
    'sale-timeout-ms': { type: 'string' },
  },
  usage: `  --dialect transbank     the device is a Transbank POS Integrado and the bridge
                          its cash register (docs/terminal/transbank.md): each
                          PENDING order is sold (whole CLP, a durable 6-character
                          ticket), an approval commits it with the POS's
                          authorization code, a decline leaves it PENDING
                          until svc-terminal retry ORDER, a VOID_PENDING order
                          is refunded by its sale's operation number, and a
                          close is totals, close and one CLP settlement.
                          Every sale, refund and close is journaled before it
                          goes on the line and settled from the POS after a
                          kill (the last sale, the refund again, the totals).
  --sale-timeout D        transbank: how long a sale may wait for the customer
                          (default ${TRANSBANK_DEFAULTS.saleTimeoutMs / 1000}s)
`,
  configure: async (values, { io, stateDir }) => ({
    definition: transbankDialect({
      journal: await SaleJournal.open(stateDir),
      saleTimeoutMs: duration(io, values, 'sale-timeout', TRANSBANK_DEFAULTS.saleTimeoutMs)!,
    }),
    line: serialLineOf(values, 115200, 1),
  }),
};
