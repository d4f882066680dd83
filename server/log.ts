// Structured log lines (one JSON object per line on stderr). Callers pass
// fields, never request bodies or headers, so secrets cannot leak by accident.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
type Fields = Record<string, unknown>;

export interface Logger {
  /** Whether lines of this level are written; lets hot paths skip building them. */
  enabled(level: Exclude<LogLevel, 'silent'>): boolean;
  debug(message: string, fields?: Fields): void;
  info(message: string, fields?: Fields): void;
  warn(message: string, fields?: Fields): void;
  error(message: string, fields?: Fields): void;
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export function isLogLevel(value: string): value is LogLevel {
  return value in rank;
}

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const emit = (at: Exclude<LogLevel, 'silent'>) => (message: string, fields?: Fields) => {
    if (rank[at] < rank[level]) return;
    write(`${JSON.stringify({ at: new Date().toISOString(), level: at, message, ...fields })}\n`);
  };
  return {
    enabled: (at) => rank[at] >= rank[level],
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
  };
}

export const silentLogger: Logger = createLogger('silent');
