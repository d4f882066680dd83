import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { BridgeState } from '../bridge/bridge-state.js';
import { unreachable, parseOptions, statePath, usageError, type CliIo } from './io.js';
import { DEFAULT_STATE_DIR, usage } from './usage.js';

// Operator commands for a running emulator or bridge that do not need its
// stdin (operator.ts): `control` sends a line to its control socket and
// prints the answer; `close` journals a batch close the bridge of a
// terminal carries out at its next cycle, as `held` and `retry` journal
// theirs.

/** svc-terminal control SOCKET COMMAND…: one operator command to a running emulator or bridge started with --control. */
export async function control(argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseOptions(
    { args: argv, allowPositionals: true, options: { help: { type: 'boolean', short: 'h' } } },
    usage.control,
  );
  if (values.help) return void io.out(usage.control);
  const [socket, ...words] = positionals;
  if (!socket || words.length === 0) throw usageError('control needs SOCKET and a COMMAND', usage.control);
  const answer = await new Promise<string>((resolve, reject) => {
    const connection = connect(socket);
    let text = '';
    connection.setEncoding('utf8');
    connection.on('connect', () => connection.write(`${words.join(' ')}\n`));
    connection.on('data', (chunk: string) => (text += chunk));
    connection.on('end', () => resolve(text));
    connection.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        unreachable(
          `nothing answers on ${socket}: ${error.code === 'ENOENT' || error.code === 'ECONNREFUSED' ? 'no emulator or bridge runs with --control there' : error.message}`,
        ),
      ),
    );
  });
  io.out(answer.endsWith('\n') ? answer : `${answer}\n`);
}

/** svc-terminal close --serial SN [--state DIR]: a batch close for the running bridge of terminal SN. */
export async function close(argv: string[], io: CliIo): Promise<void> {
  const { values } = parseOptions(
    {
      args: argv,
      options: {
        serial: { type: 'string' },
        state: { type: 'string' },
        'state-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    usage.close,
  );
  if (values.help) return void io.out(usage.close);
  if (!values.serial) throw usageError('close needs --serial', usage.close);
  const state = await BridgeState.open(statePath(io, values) ?? DEFAULT_STATE_DIR, values.serial);
  const pending = await state.pendingClose();
  if (pending)
    return void io.out(
      `a close asked ${pending.requestedAt} is still pending for ${values.serial}; the bridge carries it out at its next cycle\n`,
    );
  await state.requestClose({
    closeId: `C${Date.now().toString(36)}${randomBytes(3).toString('hex')}`,
    requestedAt: new Date().toISOString(),
  });
  io.out(`close journaled for ${values.serial} (${state.dir}): the bridge carries it out at its next cycle\n`);
}
