// Every error the terminal raises, in one table, as server/errors.ts does for
// the server: a stable code, the layer it belongs to, and the facts a caller
// branches on (whether the line is gone, whether trying again can help, how
// a command exits). Callers branch on `code` and those facts, never on a
// message or a class per file. A new error is one row.
//
// Four types, one per layer, so a catch can take a layer whole:
// - ProtocolError: bytes, a message or a file that does not read as its protocol says;
// - LineError: the line to a device failed (no answer, cut, refused frames);
// - BridgeError: the bridge's work failed (the server, the device's refusal, the journal);
// - CliError: how a command of svc-terminal ends (its exit code).

import { EXIT_NO_ANSWER } from '../contracts/cli/no-answer.js';

export type ErrorLayer = 'protocol' | 'line' | 'bridge' | 'cli';

interface Row<L extends ErrorLayer> {
  layer: L;
  /** What the code means, for the table's reader and `svc-terminal --help`. */
  means: string;
  /** Trying again as it is can succeed (a line reopened, a server back). */
  retryable: boolean;
  /** The line or connection is gone: what was under way on it is not answered. */
  disconnected: boolean;
  /** The exit code of a command that ends with it. */
  exit: number;
}

const row =
  <L extends ErrorLayer>(layer: L, defaults: Partial<Row<L>> = {}) =>
  (means: string, facts: Partial<Row<L>> = {}): Row<L> => ({
    layer,
    means,
    retryable: false,
    disconnected: false,
    exit: 1,
    ...defaults,
    ...facts,
  });
const protocol = row('protocol');
const line = row('line', { retryable: true });
const bridge = row('bridge');
const cli = row('cli');

export const TERMINAL_ERRORS = {
  FRAME_INVALID: protocol('a frame is not STX, printable payload, ETX, LRC (INTERFACE.md §9)'),
  MESSAGE_INVALID: protocol('an svc or Transbank message with a field missing or malformed'),
  APDU_INVALID: protocol('a ZVT APDU whose length disagrees with its bytes'),
  BCD_INVALID: protocol('a ZVT number that is not packed BCD'),
  BITMAP_INVALID: protocol('a known ZVT bitmap whose value is malformed'),
  BITMAP_UNKNOWN: protocol('a ZVT bitmap this emulator does not know (answered 84 83)'),
  TLV_INVALID: protocol('a ZVT TLV container that does not read'),
  REQUEST_INVALID: protocol('a ZVT command whose fields are missing or out of range'),
  NEXO_UNKNOWN_KEY: protocol('a nexo message sealed with a key identifier or version this side does not hold'),
  NEXO_BROKEN_BLOB: protocol('a nexo message whose encrypted blob does not decrypt'),
  NEXO_HMAC_MISMATCH: protocol("a nexo message whose HMAC is not its blob's"),
  TRANSCRIPT_INVALID: protocol('a transcript file that is not one'),

  LINK_TIMEOUT: line('a frame not acknowledged within the time, after every try'),
  NAK_LIMIT: line('a frame refused (NAK) on every try'),
  DISCONNECTED: line('the line or connection closed', { disconnected: true }),
  LINE_FAILED: line('the line failed: a frame not taken, a stream error, an unreadable APDU', {
    disconnected: true,
  }),
  NO_ANSWER: line('the device did not answer within the time'),
  TLS_REFUSED: line("the terminal's certificate is not one this side takes", { retryable: false }),

  SERVER_UNAVAILABLE: bridge('the server could not be used: down, failing, or an answer that decides nothing', {
    retryable: true,
  }),
  SERVER_REFUSED: bridge("the server refuses this terminal's signature (401)"),
  DEVICE_REFUSED: bridge('the device answered with a refusal of its own (svc 0990, ZVT 84 xx, an HTTP error)', {
    retryable: true,
  }),
  DEVICE_OUT_OF_STEP: bridge('the device answered out of the protocol (another record, an unexpected command)', {
    retryable: true,
  }),
  JOURNAL_FAILED: bridge('a journal or state file could not be read or written: the bridge stops'),
  STATE_CONFLICT: bridge('an operator asked for what the state does not hold, or the journal is still busy'),

  USAGE: cli('a usage mistake: the message, then where the usage is', { exit: 2 }),
  COMMAND_FAILED: cli('the command could not do what it was asked'),
  UNREACHABLE: cli('nothing answered: a terminal, a control socket, a port', { exit: EXIT_NO_ANSWER }),
} as const satisfies Record<string, Row<ErrorLayer>>;

export type TerminalErrorCode = keyof typeof TERMINAL_ERRORS;
/** The codes of one layer. */
export type CodeOf<L extends ErrorLayer> = {
  [C in TerminalErrorCode]: (typeof TERMINAL_ERRORS)[C]['layer'] extends L ? C : never;
}[TerminalErrorCode];

/** What a thrower may add: the dialect, the field at fault, the device's own code and words, an HTTP status, the usage. */
export interface ErrorFacts {
  dialect?: string;
  /** The message field at fault (Transbank). */
  field?: string;
  /** The device's own error code (svc 0990's, ZVT's 84 xx as hex). */
  deviceCode?: string;
  /** The HTTP status a nexo terminal answered. */
  httpStatus?: number;
  /** A command's usage, for USAGE. */
  help?: string;
  /** Overrides the row: a line that failed while still open. */
  disconnected?: boolean;
  cause?: unknown;
}

/**
 * The error type of one layer. The four are made alike: the code's row
 * supplies the facts, the thrower the message and what it knows. A fact not
 * given is absent, not undefined.
 */
function errorType<L extends ErrorLayer>(layer: L, name: string) {
  class LayerError extends Error {
    override readonly name = name;
    readonly layer: L = layer;
    readonly retryable: boolean;
    readonly disconnected: boolean;
    readonly exitCode: number;
    declare readonly dialect?: string;
    declare readonly field?: string;
    declare readonly deviceCode?: string;
    declare readonly httpStatus?: number;
    declare readonly help?: string;

    constructor(
      readonly code: CodeOf<L>,
      message: string,
      facts: ErrorFacts = {},
    ) {
      super(message, facts.cause === undefined ? undefined : { cause: facts.cause });
      const row: Row<ErrorLayer> = TERMINAL_ERRORS[code];
      this.retryable = row.retryable;
      this.disconnected = facts.disconnected ?? row.disconnected;
      this.exitCode = row.exit;
      for (const key of ['dialect', 'field', 'deviceCode', 'httpStatus', 'help'] as const)
        if (facts[key] !== undefined) Object.assign(this, { [key]: facts[key] });
    }
  }
  Object.defineProperty(LayerError, 'name', { value: name });
  return LayerError;
}

export const ProtocolError = errorType('protocol', 'ProtocolError');
export type ProtocolError = InstanceType<typeof ProtocolError>;
export const LineError = errorType('line', 'LineError');
export type LineError = InstanceType<typeof LineError>;
export const BridgeError = errorType('bridge', 'BridgeError');
export type BridgeError = InstanceType<typeof BridgeError>;
export const CliError = errorType('cli', 'CliError');
export type CliError = InstanceType<typeof CliError>;

export type TerminalError = ProtocolError | LineError | BridgeError | CliError;
const TYPES = [ProtocolError, LineError, BridgeError, CliError];

/** The error, when it is one of ours. */
export function terminalError(error: unknown): TerminalError | undefined {
  return TYPES.some((type) => error instanceof type) ? (error as TerminalError) : undefined;
}

/** Whether `error` is ours and carries one of `codes`. */
export function hasCode<C extends TerminalErrorCode>(
  error: unknown,
  ...codes: C[]
): error is TerminalError & { code: C } {
  const ours = terminalError(error);
  return ours !== undefined && (codes as string[]).includes(ours.code);
}

/** The code a log line names an error by: ours, or UNEXPECTED for anything else (a defect to report). */
export function codeOf(error: unknown): TerminalErrorCode | 'UNEXPECTED' {
  return terminalError(error)?.code ?? 'UNEXPECTED';
}
