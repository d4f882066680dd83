// What an emulated ZVT terminal keeps in its memory (PA00P015 §2.2.8,
// §2.16, §2.20): the turnover since the last end of day, the open
// pre-authorisations (§2.8: they outlive an end of day until booked or
// reversed), the trace and receipt numbers, the last receipt for a repeat,
// the registration in force, and a journal of what it did by itself
// (auto-reversals). Pure functions: the terminal writes each new state
// before it acts on it.

/** A booking is what a pre-authorisation became: the amount used, by 06 23 or 06 24. */
export type TransactionKind = 'payment' | 'refund' | 'reversal' | 'booking';

export interface Card {
  /** The PAN as sent, masked: 'E' for each hidden digit. */
  maskedPan: string;
  /** The ZVT card-type id (bitmap 8A). */
  type: number;
  name: string;
  /** YYMM */
  expiry: string;
}

export interface StoredTransaction {
  kind: TransactionKind;
  trace: number;
  receipt: number;
  /** Minor units. */
  amount: number;
  at: string;
  card: Card;
  /** The authorisation attribute (bitmap 3B), 8 ASCII characters. */
  aid: string;
  /** A payment reversed since (by 06 30). */
  reversed?: boolean;
  /** A reversal: the receipt number of the payment it reversed. */
  reverses?: number;
  /** A booking: the receipt number of the pre-authorisation it booked. */
  books?: number;
}

/** A pre-authorisation (06 22) not yet booked or reversed: money reserved on the card, not in the turnover. */
export type Reservation = Pick<StoredTransaction, 'trace' | 'receipt' | 'amount' | 'at' | 'card' | 'aid'>;

/** The last receipt, for a repeat receipt (06 20): the status information's bitmaps and the lines printed. */
export interface LastReceipt {
  /** The data block of its 04 0F, in hex. */
  statusInformation: string;
  lines: string[];
  /** Payment receipts and administration receipts go to the printer the config byte says. */
  admin: boolean;
}

export interface Registration {
  configByte: number;
  /** The cash register sent a currency: the terminal sends bitmap 49 back. */
  currency: boolean;
  /** The cash register sent a TLV container: the terminal may send TLV. */
  tlv: boolean;
  /** Its permitted commands (tag 26) include 06 D3: receipts go as text blocks. */
  textBlocks: boolean;
}

export interface ZvtState {
  /** The terminal id in force (bitmap 29): the one it was started with, or one set by 06 1B. */
  terminalId: string;
  /** The id it was started with (--serial): its memory belongs to it, whatever 06 1B set since. */
  serialNumber: string;
  nextTrace: number;
  nextReceipt: number;
  /** The receipt number the turnover starts at: a receipt before it was closed by an end of day. */
  turnoverFrom: number;
  turnover: StoredTransaction[];
  /** Open pre-authorisations, oldest first. */
  reservations: Reservation[];
  lastReceipt: LastReceipt | null;
  registration: Registration;
  /** The terminal status a status enquiry reports (00 ready; 51 initialisation required; C2 diagnosis required). */
  terminalStatus: number;
  /** What the terminal did by itself, newest last (the last 100). */
  journal: Array<{ at: string; event: string }>;
  /** How many end-of-day runs closed a turnover. */
  endOfDays: number;
  /** Transactions counted by every end of day so far (the single totals' counts): what settlements must add up to. */
  settledCount: number;
}

export const UNREGISTERED: Registration = { configByte: 0x86, currency: false, tlv: false, textBlocks: false };

export function newState(terminalId: string): ZvtState {
  return {
    terminalId,
    serialNumber: terminalId,
    nextTrace: 1,
    nextReceipt: 1,
    turnoverFrom: 1,
    turnover: [],
    reservations: [],
    lastReceipt: null,
    registration: UNREGISTERED,
    terminalStatus: 0x00,
    journal: [],
    endOfDays: 0,
    settledCount: 0,
  };
}

/** A memory written by an earlier version: what it lacks, as a new terminal has it. */
export function storedState(stored: ZvtState): ZvtState {
  return { ...stored, serialNumber: stored.serialNumber ?? stored.terminalId, reservations: stored.reservations ?? [] };
}

/** A trace number runs to 999999, a receipt number to 9999, then starts at 1 again. */
const following = (value: number, max: number) => (value >= max ? 1 : value + 1);

/** The numbers the next transaction takes, and the state that has used them. */
export function takeNumbers(state: ZvtState): { trace: number; receipt: number; state: ZvtState } {
  return {
    trace: state.nextTrace,
    receipt: state.nextReceipt,
    state: {
      ...state,
      nextTrace: following(state.nextTrace, 999_999),
      nextReceipt: following(state.nextReceipt, 9999),
    },
  };
}

/** A trace number alone (a declined transaction takes one, no receipt number). */
export function takeTrace(state: ZvtState): { trace: number; state: ZvtState } {
  return { trace: state.nextTrace, state: { ...state, nextTrace: following(state.nextTrace, 999_999) } };
}

/** A pre-authorisation the cash register acknowledged: the money stays reserved until booked or reversed. */
export function reserve(state: ZvtState, reservation: Reservation): ZvtState {
  return { ...state, reservations: [...state.reservations, reservation] };
}

/** The open pre-authorisation with this receipt number, if any (a booked or reversed one is no longer open). */
export function openReservation(state: ZvtState, receipt: number): Reservation | undefined {
  return state.reservations.find((reservation) => reservation.receipt === receipt);
}

/**
 * A pre-authorisation ends: released whole (06 25), or booked in part or in full (06 23, 06 24), the booking
 * entering the turnover. The reservation is gone either way.
 */
export function settleReservation(
  state: ZvtState,
  receipt: number,
  booking: StoredTransaction | null,
  printed: LastReceipt | null,
): ZvtState {
  return {
    ...state,
    reservations: state.reservations.filter((reservation) => reservation.receipt !== receipt),
    turnover: booking ? [...state.turnover, booking] : state.turnover,
    lastReceipt: printed ?? state.lastReceipt,
  };
}

export function store(state: ZvtState, transaction: StoredTransaction, receipt: LastReceipt): ZvtState {
  const turnover =
    transaction.kind === 'reversal'
      ? state.turnover.map((stored) =>
          stored.kind === 'payment' && stored.receipt === transaction.reverses ? { ...stored, reversed: true } : stored,
        )
      : state.turnover;
  return { ...state, turnover: [...turnover, transaction], lastReceipt: receipt };
}

export function noted(state: ZvtState, at: string, event: string): ZvtState {
  return { ...state, journal: [...state.journal, { at, event }].slice(-100) };
}

/** Why a payment cannot be reversed, as the terminal's error, or the payment. */
export function reversible(
  state: ZvtState,
  receipt: number,
  amount: number | undefined,
): { payment: StoredTransaction } | { error: 'already-reversed' | 'not-in-turnover' | 'amount-differs' } {
  const payment = state.turnover.find((stored) => stored.kind === 'payment' && stored.receipt === receipt);
  if (!payment) return { error: 'not-in-turnover' };
  if (payment.reversed) return { error: 'already-reversed' };
  if (amount !== undefined && amount !== payment.amount) return { error: 'amount-differs' };
  return { payment };
}

/** The card schemes of an end of day's single totals (bitmap 60), in its order. */
export const SCHEMES = ['girocard', 'JCB', 'Eurocard', 'Amex', 'VISA', 'Diners', 'other'] as const;

/** The scheme a ZVT card-type id is counted under in the single totals. */
export function schemeOf(type: number): (typeof SCHEMES)[number] {
  switch (type) {
    case 5:
      return 'girocard';
    case 6:
      return 'Eurocard'; // Mastercard
    case 8:
      return 'Amex';
    case 10:
      return 'VISA';
    case 12:
      return 'Diners';
    case 14:
      return 'JCB';
    default:
      return 'other';
  }
}

export interface Totals {
  /** Payments not reversed and bookings, less refunds, in minor units. */
  total: number;
  count: number;
  receiptFrom: number;
  receiptTo: number;
  bySchemes: Array<{ scheme: (typeof SCHEMES)[number]; count: number; amount: number }>;
}

/**
 * The turnover's totals: what an end of day transfers. A reversed payment
 * and its reversal count for nothing; a refund counts against its scheme;
 * a pre-authorisation counts only as what was booked of it.
 */
export function totals(state: ZvtState): Totals {
  const counted = state.turnover.filter((stored) => stored.kind !== 'reversal' && !stored.reversed);
  const bySchemes = SCHEMES.map((scheme) => {
    const mine = counted.filter((stored) => schemeOf(stored.card.type) === scheme);
    return {
      scheme,
      count: mine.length,
      amount: mine.reduce((sum, stored) => sum + (stored.kind === 'refund' ? -stored.amount : stored.amount), 0),
    };
  });
  const receipts = state.turnover.map((stored) => stored.receipt);
  return {
    total: bySchemes.reduce((sum, scheme) => sum + scheme.amount, 0),
    count: counted.length,
    receiptFrom: receipts.length ? Math.min(...receipts) : 0,
    receiptTo: receipts.length ? Math.max(...receipts) : 0,
    bySchemes,
  };
}

/** The turnover closed by an end of day: it starts again. */
export function closeTurnover(state: ZvtState, receipt: LastReceipt): ZvtState {
  return {
    ...state,
    settledCount: (state.settledCount ?? 0) + totals(state).count,
    turnover: [],
    turnoverFrom: state.nextReceipt,
    lastReceipt: receipt,
    endOfDays: state.endOfDays + 1,
  };
}
