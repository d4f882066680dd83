import type { DialectCommands } from './dialect-commands.js';
import { nexoCommands } from './nexo/commands.js';
import { svcCommands } from './svc/commands.js';
import { transbankCommands } from './transbank/commands.js';
import { zvtCommands } from './zvt/commands.js';
import { usageError } from './io.js';
import { usage } from './usage.js';

// The dialects svc-terminal's emulate and bridge speak, one line each: a
// new dialect is its folders (protocol/, device/, bridge/, and cli/<name>/
// for its command lines) and a line here (dialect-commands.ts).

export const DIALECTS: Record<string, DialectCommands> = {
  svc: svcCommands,
  transbank: transbankCommands,
  zvt: zvtCommands,
  nexo: nexoCommands,
};

const names = () => {
  const all = Object.keys(DIALECTS);
  return `${all.slice(0, -1).join(', ')} or ${all.at(-1)}`;
};

/** The dialect --dialect names (svc when none), read before the options are: they depend on it. */
export function dialectNamed(argv: readonly string[], help: string): { name: string; commands: DialectCommands } {
  let name = 'svc';
  argv.forEach((word, index) => {
    if (word === '--dialect' && argv[index + 1] !== undefined) name = argv[index + 1]!;
    else if (word.startsWith('--dialect=')) name = word.slice('--dialect='.length);
  });
  const commands = Object.hasOwn(DIALECTS, name) ? DIALECTS[name] : undefined;
  if (!commands) throw usageError(`--dialect is ${names()}, got ${JSON.stringify(name)}`, help);
  return { name, commands };
}

const withDialects = (text: string, part: (commands: DialectCommands) => string) =>
  [
    text,
    ...Object.values(DIALECTS)
      .map(part)
      .filter((more) => more.length > 0),
  ].join('\n');

export const bridgeUsage = () => withDialects(usage.bridge, (commands) => commands.bridge.usage);
export const emulateUsage = () => withDialects(usage.emulate, (commands) => commands.emulate.usage);
