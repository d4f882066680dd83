// How an emulated ZVT terminal is set up (svc-terminal emulate --dialect zvt),
// and which of its commands ask for the password.
import { type Timers } from '../../protocol/timers.js';
import { COMMANDS } from '../../protocol/zvt/messages.js';

export const ZVT_CARD_DELAY_MS = 1500;
export const PASSWORDED = new Set<number>([
  COMMANDS.registration,
  COMMANDS.reversal,
  COMMANDS.refund,
  COMMANDS.endOfDay,
  COMMANDS.repeatReceipt,
  COMMANDS.initialisation,
  COMMANDS.setTerminalId,
]);

export interface ZvtTerminalOptions {
  /** 8 digits: the terminal id (bitmap 29). */
  terminalId: string;
  /** 6 digits (default 000000). */
  password?: string;
  statePath?: string;
  cardDelayMs?: number;
  /** T3: how long a message of the terminal waits for the cash register's answer. */
  answerTimeoutMs?: number;
  timers?: Timers;
  log?: (line: string) => void;
  /** What a cash register polls with (status enquiries, once a second with a bridge attached): only with --debug. */
  debug?: (line: string) => void;
  /** Draws cards and authorisation codes (--seed). */
  random?: () => number;
  /** The terminal's time (--clock). */
  clock?: () => Date;
}
