import { bridge } from './bridge-command.js';
import { close, control } from './control.js';
import { emulate } from './emulate.js';
import { held, retry } from './held.js';
import { terminalError } from '../errors.js';
import { usageError, type CliIo } from './io.js';
import { play } from './play.js';
import { ports } from './ports.js';
import { zvtEcr } from './zvt/ecr.js';
import { usage } from './usage.js';
import { versionLine } from '../../contracts/cli/version.js';

const commands: Record<string, (argv: string[], io: CliIo) => Promise<void>> = {
  emulate,
  bridge,
  held,
  retry,
  close,
  control,
  ports,
  play,
  zvt: zvtEcr,
};

/**
 * svc-terminal with `argv` (the words after the command's name): runs the
 * command and answers the exit code: 0 done, 1 the command could not do
 * what it was asked (or its bridge stopped on a failure, named by its
 * code), 2 a usage mistake, 3 nothing answered. errors.ts gives each code
 * its exit.
 */
const run = (command: string | undefined) =>
  command !== undefined && Object.hasOwn(commands, command) ? commands[command] : undefined;

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === '--help' || command === '-h') {
      io.out(usage.main);
      return 0;
    }
    if (command === '--version') {
      io.out(versionLine('svc-terminal'));
      return 0;
    }
    const found = run(command);
    if (!found) throw usageError(`unknown command ${JSON.stringify(command)}`, usage.main);
    await found(rest, io);
    return 0;
  } catch (error) {
    const ours = terminalError(error);
    if (!ours) throw error;
    if (ours.code === 'USAGE') {
      // One line, and where to read more: the usage itself would bury the mistake under forty lines.
      const more = run(command) ? `svc-terminal ${command} --help` : 'svc-terminal --help';
      io.err(`svc-terminal: ${ours.message}\n(${more} says more)\n`);
      return ours.exitCode;
    }
    // A command's own ending says only its message; any other (a journal that failed under a bridge) names its code.
    io.err(`svc-terminal: ${ours.message}${ours.layer === 'cli' ? '' : ` [${ours.code}]`}\n`);
    return ours.exitCode;
  }
}
