import { EUR } from '../currencies.js';
import { apdu, type Apdu } from './apdu.js';

// The ZVT commands this project speaks (PA00P015 §2, §3), by control
// field, and the answers. ECR→PT commands are answered 80 00 (or 84 xx);
// during a transaction the terminal is master and its messages (04 0F,
// 04 FF, 06 D1, 06 D3, 06 0F, 06 1E) are answered by the cash register.

export const COMMANDS = {
  registration: 0x0600,
  authorisation: 0x0601,
  logOff: 0x0602,
  repeatReceipt: 0x0620,
  reversal: 0x0630,
  refund: 0x0631,
  endOfDay: 0x0650,
  abortFromEcr: 0x06b0,
  statusEnquiry: 0x0501,
  reservation: 0x0622,
  partialReversal: 0x0623,
  bookTotal: 0x0624,
  reservationReversal: 0x0625,
  diagnosis: 0x0670,
  initialisation: 0x0693,
  readCard: 0x06c0,
  reset: 0x0618,
  printConfiguration: 0x061a,
  setTerminalId: 0x061b,
  displayText: 0x06e0,
  statusInformation: 0x040f,
  intermediateStatus: 0x04ff,
  setEcrDateTime: 0x0401,
  completion: 0x060f,
  abort: 0x061e,
  printLine: 0x06d1,
  printTextBlock: 0x06d3,
} as const;

export type CommandName = keyof typeof COMMANDS;

const NAMES = new Map<number, CommandName>(
  Object.entries(COMMANDS).map(([name, control]) => [control, name as CommandName]),
);

export const controlOf = (message: Apdu) => (message.cls << 8) | message.ins;

/** The command's name, or its control field in hex. */
export function commandName(message: Apdu): string {
  if (message.cls === 0x80) return 'ack 80 00';
  if (message.cls === 0x84) return `answer 84 ${message.ins.toString(16).padStart(2, '0')}`;
  return NAMES.get(controlOf(message)) ?? `command ${controlOf(message).toString(16).padStart(4, '0')}`;
}

export const command = (name: CommandName, data?: Uint8Array): Apdu =>
  apdu(COMMANDS[name] >> 8, COMMANDS[name] & 0xff, data);

export const is = (message: Apdu, name: CommandName) => controlOf(message) === COMMANDS[name];

/** 80 00 00: taken. */
export const POSITIVE = apdu(0x80, 0x00);
/** 84 xx 00: refused, with the error (PA00P015 §10). */
export const refused = (error: number): Apdu => apdu(0x84, error);

/** An answer that counts as positive: 80 00, and 84 00 (PA00P016 §5.2.3). */
export const isPositive = (answer: Apdu) => (answer.cls === 0x80 || answer.cls === 0x84) && answer.ins === 0x00;
export const isAnswer = (message: Apdu) => message.cls === 0x80 || message.cls === 0x84;

/** Errors the terminal answers with (PA00P015 §10, and 37 from a vendor's precisions; see docs/terminal/zvt.md). */
export const ERRORS = {
  /** A wrong password. PA00P015 defines no answer; a terminal vendor's precisions document answers 84 37. */
  wrongPassword: 0x37,
  /** "Function deactivated": what money commands get while the terminal needs initialising (status 51). */
  functionDeactivated: 0x6b,
  abortedByTimeoutOrKey: 0x6c,
  wrongCurrency: 0x6f,
  functionNotPossible: 0x83,
  protocolError: 0x9a,
  pleaseWait: 0x9c,
  /** 84 9D to status information: the goods were issued in part, their price follows (PA00P015 §2.2.6 d). */
  partialIssue: 0x9d,
  alreadyReversed: 0xb4,
  reversalNotPossible: 0xb5,
  /** Also a pre-authorisation's amount exceeded. */
  amountWrong: 0xb7,
  /** A pre-authorisation unknown, booked or reversed; and the answer to the open-reservation enquiry. */
  preAuthorisation: 0xb8,
  diagnosisRequired: 0xc2,
  printerNotReady: 0xcc,
  /** Set terminal id with transactions in the turnover. */
  openEndOfDay: 0xf0,
  systemError: 0xff,
} as const;

/** The terminal status codes this project reports (PA00P015 §11). */
export const TERMINAL_STATUS = {
  ready: 0x00,
  initialisationRequired: 0x51,
  diagnosisRequired: 0xc2,
} as const;

/** The config byte of a registration (PA00P015 §2.1, table 1). */
export const CONFIG = {
  ecrPrintsPaymentReceipts: 0x02,
  ecrPrintsAdminReceipts: 0x04,
  intermediateStatus: 0x08,
  ecrControlsPayment: 0x10,
  ecrControlsAdmin: 0x20,
  printViaEcr: 0x80,
  /** What a log-off sets it back to (PA00P015 §2.24). */
  afterLogOff: 0x86,
} as const;

/** Intermediate statuses this project sends (PA00P015 §3.7, table 17). */
export const INTERMEDIATE = {
  waitingForHost: 0x04,
  insertCard: 0x0a,
  removeCard: 0x0b,
  pleaseWait: 0x17,
} as const;

/** The one currency a ZVT terminal takes, by its numeric code (bitmap 49). */
export const EURO = EUR.numeric;
