import { parseArgs, type ParseArgsConfig } from 'node:util';
import { durationOf } from '../../contracts/cli/duration.js';
import { parseErrorInWords } from '../../contracts/cli/parse-words.js';
import { CliError } from '../errors.js';

/** What a command of svc-terminal talks through: the process's streams and environment, or a test's. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Operator lines (emulate, bridge). */
  input: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
  /** Aborted when a long-running command (emulate, bridge) should stop: SIGINT or SIGTERM, or a test. */
  stop: AbortSignal;
}

/** A usage mistake (USAGE, exit 2): said in one line, with where the usage is. */
export const usageError = (message: string, help?: string): CliError =>
  new CliError('USAGE', message, help === undefined ? {} : { help });

/** A command that could not do what it was asked (COMMAND_FAILED, exit 1). */
export const commandFailed = (message: string): CliError => new CliError('COMMAND_FAILED', message);

/** Nothing answered: a terminal's address, a control socket (UNREACHABLE, exit 3, as every command of ours says it). */
export const unreachable = (message: string): CliError => new CliError('UNREACHABLE', message);

/** A line of the log: on stdout, stamped. */
export const logTo = (io: CliIo) => (line: string) => io.out(`${new Date().toISOString()} ${line}\n`);

/** An error line of the log: on stderr, stamped. */
export const errorTo = (io: CliIo) => (line: string) => io.err(`${new Date().toISOString()} ERROR ${line}\n`);

type ParsedResults<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>;

/** parseArgs, with a mistyped option answered as a usage error (exit 2), not a stack trace. */
export function parseOptions<const T extends ParseArgsConfig>(config: T, help: string): ParsedResults<T> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw usageError(parseErrorInWords(error), help);
  }
}

export function integer(name: string, value: string | undefined, fallback?: number): number | undefined {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw usageError(`--${name} must be a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** Resolves once `signal` is aborted. */
export function stopped(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/**
 * A duration option (durations.ts: `--poll 50ms`), or its old spelling in
 * milliseconds (`--poll-ms 50`) with a warning; `fallback` when neither.
 */
export function duration(
  io: CliIo,
  values: Record<string, unknown>,
  name: string,
  fallback?: number,
  oldName = `${name}-ms`,
): number | undefined {
  return durationOf(
    values,
    { name, oldSpelling: { name: oldName, unit: 'ms' } },
    fallback,
    (message) => {
      throw usageError(message);
    },
    (message) => io.err(`svc-terminal: warning: ${message}\n`),
  );
}

/** Where a command keeps what survives a restart: --state PATH, or its old spelling --state-dir DIR with a warning. */
export function statePath(io: CliIo, values: Record<string, unknown>): string | undefined {
  if (typeof values.state === 'string') return values.state;
  if (typeof values['state-dir'] !== 'string') return undefined;
  io.err(`svc-terminal: warning: --state-dir is the old spelling: --state ${values['state-dir']}\n`);
  return values['state-dir'];
}
