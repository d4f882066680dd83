import { bridge } from './bridge-command.js';
import { close, control } from './control.js';
import { emulate } from './emulate.js';
import { held, retry } from './held.js';
import { EXIT_NO_ANSWER } from '../../contracts/cli/no-answer.js';
import { CommandError, UnreachableError, UsageError, type CliIo } from './io.js';
import { play } from './play.js';
import { ports } from './ports.js';
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
};

/**
 * svc-terminal with `argv` (the words after the command's name): runs the
 * command and answers the exit code: 0 done, 1 the command could not do
 * what it was asked, 2 a usage mistake (said with the usage).
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
    if (!found) throw new UsageError(`unknown command ${JSON.stringify(command)}`, usage.main);
    await found(rest, io);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      // One line, and where to read more: the usage itself would bury the mistake under forty lines.
      const more = run(command) ? `svc-terminal ${command} --help` : 'svc-terminal --help';
      io.err(`svc-terminal: ${error.message}\n(${more} says more)\n`);
      return 2;
    }
    if (error instanceof CommandError) {
      io.err(`svc-terminal: ${error.message}\n`);
      return error instanceof UnreachableError ? EXIT_NO_ANSWER : 1;
    }
    throw error;
  }
}
