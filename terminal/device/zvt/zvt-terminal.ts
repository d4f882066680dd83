import { readJournalSync, writeJournalSync } from '../journal-file.js';
import { realTimers, type Timers } from '../../protocol/timers.js';
import { codeHex, describe, type Apdu } from '../../protocol/zvt/apdu.js';
import { packBcd } from '../../protocol/zvt/bcd.js';
import { hasCode } from '../../errors.js';
import type { ZvtLine } from '../../protocol/zvt/line.js';
import { T3_MS } from '../../protocol/zvt/line.js';
import { commandName, controlOf, ERRORS, is, isAnswer, POSITIVE, refused } from '../../protocol/zvt/messages.js';
import type { Conversation, Reply } from './conversation.js';
import { drawCard } from './cards.js';
import { parseRequest, type Request } from './requests.js';
import { blockedByStatus, carryOut } from './dispatch.js';
import { newState, storedState, totals, type ZvtState } from './zvt-state.js';
import { PASSWORDED, ZVT_CARD_DELAY_MS, type ZvtTerminalOptions } from './zvt-terminal-options.js';
import { CliError } from '../../errors.js';
export { ZVT_CARD_DELAY_MS, type ZvtTerminalOptions } from './zvt-terminal-options.js';

// An emulated ZVT payment terminal (PA00P015, PA00P016), on any line that
// carries APDUs: a serial port or a TCP connection. It answers the cash
// register's commands and, for each transaction, is master of the line
// until its Completion or Abort. Its memory (the turnover, the numbers, the
// last receipt) is written before it acts on it, to --state when given.

interface Waiting {
  line: ZvtLine;
  resolve: (reply: Reply) => void;
}

export class ZvtTerminal {
  private current: ZvtState;
  private readonly timers: Timers;
  private readonly log: (line: string) => void;
  private readonly password: Buffer;
  private waiting: Waiting | null = null;
  private card: { line: ZvtLine; abort: () => void } | null = null;
  private running: Promise<void> | null = null;
  /** A command that came after the running transaction handed the line back: worked when it ends. */
  private next: { line: ZvtLine; message: Apdu } | null = null;
  /** The running transaction sent its Completion or Abort: the cash register is master again. */
  private handedBack = false;
  private readonly nextOutcomes: number[] = [];
  /** The text the cash register last had displayed (06 E0). */
  private display: string[] = [];

  constructor(private readonly options: ZvtTerminalOptions) {
    if (!/^\d{8}$/.test(options.terminalId)) throw new CliError('USAGE', 'a ZVT terminal id is 8 digits');
    this.password = packBcd(options.password ?? '000000');
    this.timers = options.timers ?? realTimers;
    this.log = options.log ?? (() => undefined);
    const read = options.statePath ? readJournalSync<ZvtState>(options.statePath) : undefined;
    const stored = read && storedState(read);
    if (stored && stored.serialNumber !== options.terminalId)
      throw new CliError(
        'COMMAND_FAILED',
        `${options.statePath} is the memory of terminal ${stored.serialNumber}, not ${options.terminalId}`,
      );
    this.current = stored ?? newState(options.terminalId);
  }

  get snapshot(): ZvtState {
    return this.current;
  }

  /** Resolves once the transaction under way (if any) has handed the line back. */
  async idle(): Promise<void> {
    while (this.running) await this.running.then(() => new Promise((resolve) => setImmediate(resolve)));
  }

  /** Works the commands that come on `line` from now on; a line that closes ends its transaction. */
  attach(line: ZvtLine): void {
    line.on('apdu', (message: Apdu) => this.received(line, message));
    line.once('close', (error: Error) => {
      if (this.waiting?.line === line) this.settle({ answered: false, why: error.message });
      if (this.card?.line === line) this.card.abort();
    });
  }

  private received(line: ZvtLine, message: Apdu): void {
    if (this.waiting?.line === line && isAnswer(message)) return this.settle({ answered: true, answer: message });
    if (is(message, 'abortFromEcr') && this.card?.line === line) {
      void line.send(POSITIVE).catch(() => undefined);
      return this.card.abort();
    }
    if (isAnswer(message)) return this.log(`stray ${commandName(message)} ignored`);
    if (this.running) {
      // While the terminal is master (PA00P016 §5.1) a command is not the cash register's to send: one that
      // gave up waiting and asks again must not have its old command worked later, when it has moved on
      // (a payment it took for not made would be made after all). It is ignored, and the cash register times out.
      if (!this.handedBack)
        return this.log(`${commandName(message)} ignored: the terminal is master of the line (${describe(message)})`);
      // The Completion or Abort went out: a cash register sends its next command as soon as it answered it,
      // often in the same packet. It is worked once this transaction has ended.
      this.next = { line, message };
      return;
    }
    this.start(line, message);
  }

  private start(line: ZvtLine, message: Apdu): void {
    this.handedBack = false;
    const run = this.work(line, message)
      .catch((error: unknown) => this.log(`${commandName(message)} failed: ${(error as Error).message}`))
      .finally(() => {
        this.running = null;
        const next = this.next;
        this.next = null;
        if (next && !next.line.isClosed) this.start(next.line, next.message);
      });
    this.running = run;
  }

  private settle(reply: Reply): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.resolve(reply);
  }

  private async work(line: ZvtLine, message: Apdu): Promise<void> {
    (is(message, 'statusEnquiry') ? this.options.debug : this.log)?.(`${commandName(message)} from the cash register`);
    // An answer that ends the command (a refusal, or a command without a master phase) hands the line back.
    const answer = (reply: Apdu) => {
      this.handedBack = true;
      return line.send(reply).catch((error: Error) => this.log(`could not answer: ${error.message}`));
    };
    if (PASSWORDED.has(controlOf(message)) || (is(message, 'statusEnquiry') && message.data.length >= 3)) {
      if (message.data.length < 3) return answer(refused(ERRORS.protocolError));
      if (!message.data.subarray(0, 3).equals(this.password)) {
        this.log(`${commandName(message)} refused: wrong password`);
        return answer(refused(ERRORS.wrongPassword));
      }
    }
    let request: Request;
    try {
      request = parseRequest(message);
    } catch (error) {
      const unknown = hasCode(error, 'BITMAP_UNKNOWN');
      this.log(`${commandName(message)} refused: ${(error as Error).message}`);
      return answer(refused(unknown ? ERRORS.functionNotPossible : ERRORS.protocolError));
    }
    const blocked = blockedByStatus(request, this.current.terminalStatus);
    if (blocked !== undefined) {
      this.log(
        `${commandName(message)} refused: terminal status ${codeHex(this.current.terminalStatus)} (${blocked.why})`,
      );
      return answer(refused(blocked.error));
    }
    return carryOut(request, this.conversation(line), answer, {
      name: commandName(message),
      log: this.log,
      show: (lines) => (this.display = lines),
    });
  }

  private conversation(line: ZvtLine): Conversation {
    const answerTimeoutMs = this.options.answerTimeoutMs ?? T3_MS;
    const random = this.options.random ?? Math.random;
    const current = () => this.current;
    return {
      get state() {
        return current();
      },
      commit: (next) => this.persist(next),
      now: () => this.options.clock?.() ?? new Date(this.timers.now()),
      log: this.log,
      answer: (message) => line.send(message).catch((error: Error) => this.log(`could not answer: ${error.message}`)),
      tell: async (message, timeoutMs = answerTimeoutMs, handsBack = false) => {
        if (handsBack || is(message, 'completion') || is(message, 'abort')) this.handedBack = true;
        const reply = new Promise<Reply>((resolve) => (this.waiting = { line, resolve }));
        try {
          await line.send(message);
        } catch (error) {
          this.settle({ answered: false, why: (error as Error).message });
          return reply;
        }
        const timer = this.timers.setTimeout(
          () =>
            this.settle({
              answered: false,
              why: `no answer to ${commandName(message)} within ${timeoutMs === answerTimeoutMs ? 'T3' : 'its time-out'} (${timeoutMs} ms)`,
            }),
          timeoutMs,
        );
        return reply.finally(() => this.timers.clearTimeout(timer));
      },
      wait: (ms) => new Promise((resolve) => this.timers.setTimeout(resolve, ms)),
      presentCard: (timeoutMs) =>
        new Promise((resolve) => {
          const delay = this.options.cardDelayMs ?? ZVT_CARD_DELAY_MS;
          const timesOut = timeoutMs !== undefined && timeoutMs < delay;
          const timer = this.timers.setTimeout(
            () => {
              this.card = null;
              resolve(timesOut ? 'timeout' : 'card');
            },
            timesOut ? timeoutMs : delay,
          );
          this.card = {
            line,
            abort: () => {
              this.timers.clearTimeout(timer);
              this.card = null;
              resolve('aborted');
            },
          };
        }),
      giveUpLine: (why) => {
        if (line.transport === 'tcp' && !line.isClosed) {
          this.log(`closing the connection: ${why}`);
          line.close();
        }
      },
      outcome: (amount) => this.nextOutcomes.shift() ?? (amount >= 1 && amount <= 99 ? amount : 0),
      drawCard: () => drawCard(random, this.options.clock?.() ?? new Date(this.timers.now())),
    };
  }

  /** An operator's line on stdin; answers what to print. */
  operator(text: string): string {
    const [word, argument] = text.trim().split(/\s+/);
    switch (word) {
      case 'next': {
        if (argument === 'approve') {
          this.nextOutcomes.push(0);
          return 'the next payment is approved';
        }
        if (argument && /^[0-9a-fA-F]{2}$/.test(argument) && argument !== '00') {
          this.nextOutcomes.push(parseInt(argument, 16));
          return `the next payment is declined with result code ${argument.toUpperCase()}`;
        }
        return 'next approve | next RC (a result code in hex, e.g. 05, 6C)';
      }
      case 'set-status': {
        // 51 and C2 stop money commands until the cash register initialises (06 93) or diagnoses (06 70).
        if (!argument || !/^[0-9a-fA-F]{2}$/.test(argument))
          return 'set-status HH (00 ready, 51 initialisation required, C2 diagnosis required)';
        this.persist({ ...this.current, terminalStatus: parseInt(argument, 16) });
        return `terminal status ${argument.toUpperCase()}`;
      }
      case 'status':
        return this.describe();
      case 'journal':
        return this.current.journal.map((entry) => `${entry.at} ${entry.event}`).join('\n') || 'the journal is empty';
      default:
        return 'commands: status, journal, next approve|RC, set-status HH';
    }
  }

  private persist(next: ZvtState): void {
    if (this.options.statePath) writeJournalSync(this.options.statePath, next);
    this.current = next;
  }

  private describe(): string {
    const state = this.current;
    const total = totals(state).total;
    return [
      `terminal ${state.terminalId}${state.terminalId === state.serialNumber ? '' : ` (serial ${state.serialNumber})`}, status ${state.terminalStatus.toString(16).padStart(2, '0')}, config byte ${state.registration.configByte.toString(16).padStart(2, '0')}`,
      `turnover: ${state.turnover.length} transaction(s), net ${total} minor units; next trace ${state.nextTrace}, next receipt ${state.nextReceipt}`,
      `open pre-authorisations: ${state.reservations.map((open) => `receipt ${open.receipt} (${open.amount})`).join(', ') || 'none'}`,
      `auto-reversals in the journal: ${state.journal.filter((entry) => entry.event.startsWith('auto-reversal')).length}`,
      ...(this.display.length ? [`display: ${this.display.join(' | ')}`] : []),
      this.running ? 'a transaction is under way' : 'idle',
    ].join('\n');
  }
}
