// Durations on every command line, one way: a number with its unit, 200ms,
// 5s, 2m, 1h (1.5s too), read by this one function. The spellings before
// this one (a bare number of milliseconds in --…-ms options, of seconds in
// svc-contracts' timeouts) still work, with a warning saying the new one.

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds of `200ms`, `5s`, `1.5s`, `2m`, `1h`; null for anything else (a bare number has no unit). */
export function parseDuration(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  if (!match) return null;
  const ms = Number(match[1]) * UNITS[match[2]!]!;
  return Number.isFinite(ms) ? Math.round(ms) : null;
}

/** How a duration reads back: whole seconds as `5s`, else milliseconds. */
export const formatDuration = (ms: number) => (ms % 1000 === 0 && ms > 0 ? `${ms / 1000}s` : `${ms}ms`);

export interface DurationOption {
  /** The option's name now, without dashes: `poll`. */
  name: string;
  /** The name it had before, whose bare number is in `oldSpelling`: `poll-ms`. */
  oldSpelling?: { name: string; unit: 'ms' | 's' };
  /** A bare number given to the option itself is read in this unit, with a warning (svc-contracts' seconds). */
  bareUnit?: 'ms' | 's';
  min?: number;
  max?: number;
}

/**
 * The option's value in milliseconds, or `fallback` when neither spelling
 * is given. `problem` answers a usage error (never returns); `warn` says
 * an old spelling and the new one.
 */
export function durationOf(
  values: Record<string, unknown>,
  option: DurationOption,
  fallback: number | undefined,
  problem: (message: string) => never,
  warn: (message: string) => void,
): number | undefined {
  const given = values[option.name];
  const oldValue = option.oldSpelling && values[option.oldSpelling.name];
  let ms: number | undefined;
  if (typeof given === 'string') {
    const parsed = parseDuration(given);
    if (parsed !== null) ms = parsed;
    else if (option.bareUnit && /^\d+(\.\d+)?$/.test(given)) {
      ms = Math.round(Number(given) * UNITS[option.bareUnit]!);
      warn(`--${option.name} ${given}: give its unit, --${option.name} ${formatDuration(ms)}`);
    } else
      return problem(`--${option.name} takes a duration with its unit (200ms, 5s, 2m), got ${JSON.stringify(given)}`);
  } else if (typeof oldValue === 'string' && option.oldSpelling) {
    if (!/^\d+(\.\d+)?$/.test(oldValue))
      return problem(`--${option.oldSpelling.name} must be a number, got ${JSON.stringify(oldValue)}`);
    ms = Math.round(Number(oldValue) * UNITS[option.oldSpelling.unit]!);
    warn(`--${option.oldSpelling.name} is the old spelling: --${option.name} ${formatDuration(ms)}`);
  } else return fallback;
  if ((option.min !== undefined && ms < option.min) || (option.max !== undefined && ms > option.max))
    return problem(
      `--${option.name} is ${option.min !== undefined ? `at least ${formatDuration(option.min)}` : ''}${option.min !== undefined && option.max !== undefined ? ' and ' : ''}${option.max !== undefined ? `at most ${formatDuration(option.max)}` : ''}, got ${formatDuration(ms)}`,
    );
  return ms;
}
