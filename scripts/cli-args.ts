import { parseArgs, type ParseArgsConfig } from 'node:util';

// The one way the scripts' commands (race, replay, svc-scenario) read their
// words: options and files parsed, --help answered with the usage, and any
// mistake said in one line with the command's name, exit status 2.

type Options = NonNullable<ParseArgsConfig['options']>;

export function commandLine<const O extends Options>(
  name: string,
  usage: string,
  options: O,
  { usageOnError = true }: { usageOnError?: boolean } = {},
) {
  const fail = (message: string): never => {
    process.stderr.write(`${name}: ${message}\n${usageOnError ? `\n${usage}` : ''}`);
    process.exit(2);
  };
  const withHelp = { ...options, help: { type: 'boolean', short: 'h' } } as const;
  let parsed;
  try {
    parsed = parseArgs({ allowPositionals: true, options: withHelp });
  } catch (error) {
    return fail((error as Error).message);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(usage);
    process.exit(0);
  }
  return { values: parsed.values, positionals: parsed.positionals, fail };
}
