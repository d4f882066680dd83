import { parseArgs, type ParseArgsConfig } from 'node:util';
import { versionLine } from '../contracts/cli/version.js';
import { parseErrorInWords } from '../contracts/cli/parse-words.js';

// The one way the scripts' commands (svc-replay, svc-race, svc-demo,
// svc-store, svc-scenario) read their words: options and files parsed,
// --help answered with the usage and --version with the package's version,
// and any mistake said in one line with the command's name and where to
// read more, exit status 2.

type Options = NonNullable<ParseArgsConfig['options']>;

export function commandLine<const O extends Options>(name: string, usage: string, options: O) {
  const fail = (message: string): never => {
    process.stderr.write(`${name}: ${message}\n(${name} --help says more)\n`);
    process.exit(2);
  };
  const withHelp = {
    ...options,
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean' },
  } as const;
  let parsed;
  try {
    parsed = parseArgs({ allowPositionals: true, options: withHelp });
  } catch (error) {
    return fail(parseErrorInWords(error));
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(usage);
    process.exit(0);
  }
  if ((parsed.values as { version?: boolean }).version) {
    process.stdout.write(versionLine(name));
    process.exit(0);
  }
  return { values: parsed.values, positionals: parsed.positionals, fail };
}
