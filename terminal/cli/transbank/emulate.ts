import { TRANSBANK_CARD_DELAY_MS, TURNAROUND_MS } from '../../device/transbank/transbank-pos.js';
import type { EmulateCommand } from '../dialect-commands.js';
import { emulateOnSerial, SERIAL_OPTIONS, type SerialValues } from '../emulate-serial.js';

/** svc-terminal emulate --dialect transbank: a Transbank POS Integrado on a serial line. */
export const transbankEmulateCommand: EmulateCommand = {
  options: SERIAL_OPTIONS,
  usage: `  --dialect transbank a Transbank POS Integrado instead
                      (docs/terminal/transbank.md):
                      --serial is its terminal id (8 characters at most), it
                      answers the cash register's sale, multicode sale, last
                      sale, multicode last sale, refund, close, totals, sales
                      detail, multicode sales detail, load keys, poll and
                      change to normal POS, and approves every sale
                      after --card-delay (default ${TRANSBANK_CARD_DELAY_MS}ms) except amounts
                      of 1 to 99 pesos, refused with that response code.
                      --state keeps its batch, operation numbers and last
                      sale. On stdin: next approve|debit|RC (the next sale's
                      outcome), unload-keys, integrated, status.
  --commerce-code N   the Transbank POS's commerce code (12 digits at most)
  --turnaround D      transbank: the least time from a request's ACK to each
                      frame after it (default ${TURNAROUND_MS}ms: the official SDK cuts
                      packets by 100 ms of silence, so less breaks it; a
                      cash register that reads frames may use less)
  --seed N, --clock ISO  authorisation codes and card digits drawn from N,
                      and the time stamped on every sale: with both, the POS
                      answers the same bytes to the same requests
                      (svc-terminal play checks a transcript so)
`,
  run: (values, io) => emulateOnSerial({ ...(values as SerialValues), dialect: 'transbank' }, io),
};
