import type { Account } from '../accounts/account.js';
import type { TerminalRecord } from './terminal.js';

/** How many terminals one instance keeps the last read of: a bounded map, the least recently used forgotten first. */
export const KNOWN_TERMINALS = 10_000;

/**
 * The terminals (with their accounts) this instance last read, so that a
 * signature can be checked before the one step that claims it and reads
 * them again as they are now.
 */
export class KnownTerminals {
  private readonly terminals = new Map<string, { terminal: TerminalRecord; account: Account }>();

  constructor(private readonly capacity = KNOWN_TERMINALS) {}

  /** What was last read of it. Every request that uses it remembers it again (or forgets it), which makes it the most recently used. */
  get(serial: string): { terminal: TerminalRecord; account: Account } | undefined {
    return this.terminals.get(serial);
  }

  remember(serial: string, terminal: TerminalRecord, account: Account): void {
    this.terminals.delete(serial);
    this.terminals.set(serial, { terminal, account });
    if (this.terminals.size > this.capacity) this.terminals.delete(this.terminals.keys().next().value!);
  }

  forget(serial: string): void {
    this.terminals.delete(serial);
  }
}
