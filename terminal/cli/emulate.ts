import { dialectNamed, emulateUsage } from './dialects.js';
import { parseOptions, type CliIo } from './io.js';
import { usage } from './usage.js';

/** svc-terminal emulate: an emulated device of the dialect named (svc when none), until stopped. */
export async function emulate(argv: string[], io: CliIo): Promise<void> {
  const { commands } = dialectNamed(argv, usage.emulate);
  const help = emulateUsage();
  const { values } = parseOptions(
    {
      args: argv,
      options: {
        ...commands.emulate.options,
        dialect: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    help,
  );
  if (values.help) return void io.out(help);
  await commands.emulate.run(values, io);
}
