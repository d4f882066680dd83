import type { Apdu } from '../../protocol/zvt/apdu.js';
import type { ZvtState } from './zvt-state.js';

// What a transaction of an emulated ZVT terminal works with while it is
// master of the line (PA00P016 §5.1): the state it writes before it acts,
// and the line, where each of its messages waits for the cash register's
// answer.

/** The cash register's answer to a message of the terminal, or why none came. */
export type Reply = { answered: true; answer: Apdu } | { answered: false; why: string };

export interface Conversation {
  readonly state: ZvtState;
  /** The new state, written to the terminal's memory before anything depends on it. */
  commit(next: ZvtState): void;
  now(): Date;
  log(line: string): void;
  /** Answers the cash register's command: 80 00 00, or 84 xx. */
  answer(message: Apdu): Promise<void>;
  /**
   * Sends a message as master and waits for the cash register's answer: T3, unless `timeoutMs` says otherwise.
   * Completion and Abort hand the line back; so does a message with `handsBack` (a read card's status information).
   */
  tell(message: Apdu, timeoutMs?: number, handsBack?: boolean): Promise<Reply>;
  /** Waits on the terminal's clock. */
  wait(ms: number): Promise<void>;
  /**
   * The customer presents a card: resolves 'card', 'aborted' when the cash register sends 06 B0 meanwhile, or
   * 'timeout' when `timeoutMs` passes first (a read card's time-out).
   */
  presentCard(timeoutMs?: number): Promise<'card' | 'aborted' | 'timeout'>;
  /** The line no longer works for this transaction (no answer within T3): a TCP connection is closed. */
  giveUpLine(why: string): void;
  /** The next approval or decline: the operator's choice, else by the amount. */
  outcome(amount: number): number;
  /** A card as the customer presents it, and the authorisation attribute it gets. */
  drawCard(): { maskedPan: string; type: number; name: string; expiry: string; aid: string };
}
