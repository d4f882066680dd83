import type { Apdu } from '../../protocol/zvt/apdu.js';
import { ERRORS, POSITIVE, refused, TERMINAL_STATUS } from '../../protocol/zvt/messages.js';
import * as adminFlows from './admin-flows.js';
import type { Conversation } from './conversation.js';
import * as flows from './flows.js';
import type { Request } from './requests.js';
import * as reservations from './reservations.js';
import * as serviceFlows from './service-flows.js';
import { UNREGISTERED } from './zvt-state.js';

// What the emulated ZVT terminal does with a command it has read: whether
// its status lets it run, and which flow carries it out.

/** Commands that move money or close the turnover: refused while the terminal waits for its host. */
const MONEY_COMMANDS = new Set<Request['kind']>([
  'payment',
  'refund',
  'reservation',
  'reversal',
  'partial-reversal',
  'book-total',
  'reservation-reversal',
  'end-of-day',
]);

/**
 * A terminal that needs its host (PA00P015 §11) takes no money until the cash register has it initialised (51,
 * refused 84 6B, "function deactivated") or diagnosed (C2, refused 84 C2, "diagnosis required").
 */
const BLOCKED_BY_STATUS: Readonly<Record<number, { error: number; why: string }>> = {
  [TERMINAL_STATUS.initialisationRequired]: {
    error: ERRORS.functionDeactivated,
    why: 'initialisation required: 06 93',
  },
  [TERMINAL_STATUS.diagnosisRequired]: { error: ERRORS.diagnosisRequired, why: 'diagnosis required: 06 70' },
};

/** The refusal a command meets in this terminal status, or undefined when it may run. */
export function blockedByStatus(request: Request, terminalStatus: number): { error: number; why: string } | undefined {
  return MONEY_COMMANDS.has(request.kind) ? BLOCKED_BY_STATUS[terminalStatus] : undefined;
}

/** The command, read and allowed, carried out: each kind by its flow. */
export async function carryOut(
  request: Request,
  c: Conversation,
  answer: (reply: Apdu) => Promise<void>,
  { name, log, show }: { name: string; log: (line: string) => void; show: (lines: string[]) => void },
): Promise<void> {
  switch (request.kind) {
    case 'unknown':
      if (request.why) log(`${name} refused: ${request.why}`);
      return answer(refused(ERRORS.functionNotPossible));
    case 'wrong-currency':
      await c.answer(POSITIVE);
      return void (await c.tell({ cls: 0x06, ins: 0x1e, data: Buffer.of(ERRORS.wrongCurrency, 0x09, 0x78) }));
    case 'registration':
      return adminFlows.register(c, request);
    case 'payment':
    case 'refund':
    case 'reservation':
      return flows.pay(c, request);
    case 'reversal':
      return flows.reverse(c, request);
    case 'partial-reversal':
      return reservations.book(c, request);
    case 'book-total':
      return reservations.book(c, { ...request, ...(request.amount !== undefined ? { used: request.amount } : {}) });
    case 'reservation-reversal':
      return reservations.release(c, request);
    case 'open-reservations':
      return reservations.enquireOpenReservations(c);
    case 'end-of-day':
      return flows.endOfDay(c, request.currencySent);
    case 'repeat-receipt':
      return adminFlows.repeatReceipt(c, request.serviceByte);
    case 'status-enquiry':
      return adminFlows.statusEnquiry(c, request.serviceByte);
    case 'diagnosis':
      return serviceFlows.diagnose(c, request.diagnosisType);
    case 'initialisation':
      return serviceFlows.initialise(c);
    case 'read-card':
      return serviceFlows.readCard(c, request.timeoutSeconds);
    case 'reset':
      return serviceFlows.reset(c);
    case 'print-configuration':
      return serviceFlows.printConfiguration(c);
    case 'set-terminal-id':
      return serviceFlows.setTerminalId(c, request.terminalId);
    case 'display-text':
      // Shown until its duration passes or another text comes; no Completion (§2.26).
      show(request.lines);
      log(`display: ${request.lines.join(' | ') || '(blank)'}`);
      return answer(POSITIVE);
    case 'log-off':
      await answer(POSITIVE);
      c.commit({ ...c.state, registration: UNREGISTERED });
      return log('logged off: config byte 86');
    case 'abort':
      return answer(POSITIVE); // nothing runs to abort
  }
}
