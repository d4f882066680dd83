import type { Duplex } from 'node:stream';
import type { AskKind } from '../protocol/ask-kind.js';
import type { MoneyRecord } from './money-record.js';
import type { Timers } from '../protocol/timers.js';
import type { BridgeState, PendingClose } from './bridge-state.js';

// The port the bridge drives a device through, whatever its messages and
// whatever carries them (docs/terminal/shared.md): the bridge keeps the cycle
// (the server's orders to ask, the records to deliver, holds and operator
// decisions, closes, the line and its backoff), a dialect frames its
// messages on the line it is given (a serial port, a TCP connection),
// speaks to the device and keeps what its own recovery needs. A new
// dialect is a DialectDefinition and its message tables; nothing in
// bridge.ts changes.

export type { AskKind };

/** An order the server wants charged (PENDING) or voided (VOID_PENDING). */
export interface OrderToAsk {
  orderId: string;
  amount: number;
  currency: string;
}

/** What a dialect knows of an ask it may have made before, from its journal or the device's own word. */
export type KnownAsk =
  /** Never asked, or asked and known not to have reached the device: ask it. */
  | 'ask'
  /** Asked, and being worked or done on the device: not again. */
  | 'asked'
  /** Declined at the device: not again by itself (its order stays open on the server). */
  | 'declined'
  /** The device cannot say: the dialect held it for an operator. */
  | 'held';

/** What came of an ask. */
export interface AskOutcome {
  /** The device took it (an approval, for a device that answers at once). */
  asked: boolean;
  /** A money record for the server was made with it (delivered at once). */
  recorded?: boolean;
}

/** What a dialect's device does for the bridge. */
export interface Dialect {
  /** Once per cycle, first: the poll, and the outcome of a request a kill or a line fault left without its answer, from the device's own word. */
  establish(): Promise<void>;
  /** Whether the order may be asked again (lastOutcome of the request that may have reached the device). */
  lastOutcome(kind: AskKind, order: OrderToAsk): Promise<KnownAsk>;
  /** Asks the device to charge the order (a PENDING one). */
  charge(order: OrderToAsk): Promise<AskOutcome>;
  /**
   * Asks the device to void the order's charge (a VOID_PENDING one), however
   * the device does it (a reversal, a refund): one name for the one action,
   * as the server's void and the bridge's void record name it.
   */
  void(order: OrderToAsk): Promise<AskOutcome>;
  /** An operator discarded a held ask: it is not asked again by itself. */
  discarded(kind: AskKind, orderId: string): Promise<void>;
  /** Carries out a batch close the host asked for, once however often it is tried. */
  close(close: PendingClose): Promise<void>;
  /** The oldest money record still for the server (kept on the device or in the bridge's journal), or null. */
  nextRecord(): Promise<MoneyRecord | null>;
  /** The server holds `record`: it is done with. */
  recordDelivered(record: MoneyRecord): Promise<void>;
}

/** A line a dialect speaks over, once opened. */
export interface DialectLine {
  readonly isClosed: boolean;
  close(): void;
}

/** A dialect's device as the bridge drives it: the port, and the lines it is given. */
export interface DialectDevice extends Dialect {
  /** A line opened (a serial port, a TCP connection): the device's messages go over it from now on. */
  connect(stream: Duplex): DialectLine;
}

/** What the bridge gives a dialect to work with. */
export interface DialectContext {
  state: BridgeState;
  timers: Timers;
  /** The answer timeout in force (--answer-timeout-ms, or the dialect's default). */
  answerTimeoutMs: number;
  log: (line: string) => void;
  error: (line: string) => void;
  debug?: (line: string) => void;
  /** The bridge's clock, as an ISO time. */
  iso(): string;
  /** Holds an ask for an operator's decision, and says so. */
  hold(kind: AskKind, orderId: string, reason: string): Promise<void>;
}

/** A dialect as the bridge starts it: its words, its defaults, and the device it makes of a context. */
export interface DialectDefinition {
  /** The dialect's name, for the log (--dialect). */
  name: string;
  /** What the log calls the device. */
  deviceName: string;
  /** What the log calls a charge and a void (a POS Integrado sells and refunds). */
  words: Record<AskKind, string>;
  /** Where undelivered records wait, for the courier's log. */
  recordsKeptOn: 'device' | 'journal';
  answerTimeoutMs: number;
  create(context: DialectContext): DialectDevice;
}
