import { BridgeError, LineError } from '../../errors.js';
import { hex } from '../../protocol/frame.js';
import { realTimers, type Timers } from '../../protocol/timers.js';
import { encodeApdu, type Apdu } from '../../protocol/zvt/apdu.js';
import { bcdValue } from '../../protocol/zvt/bcd.js';
import { decodeFields, type Field } from '../../protocol/zvt/bitmaps.js';
import { T3_MS, type ZvtLine } from '../../protocol/zvt/line.js';
import { command, commandName, ERRORS, is, isAnswer, POSITIVE, refused } from '../../protocol/zvt/messages.js';
import { findTlv } from '../../protocol/zvt/tlv.js';

// The cash register's side of a ZVT transaction (PA00P016 §5): it sends a
// command, hears 80 00 (or 84 xx) within T3, and then, while the terminal
// is master, answers each of its messages until the Completion (06 0F) or
// Abort (06 1E) hands the line back. T4 (180 s) bounds the wait for each
// next message; intermediate status (04 FF) and status information (04 0F)
// restart it, and an intermediate status's timeout byte sets it.

/** T4: how long the terminal may be silent while it is master (PA00P016 §5.2.6). */
export const T4_MS = 180_000;

const ZVT = { dialect: 'zvt' } as const;

/** What came of a transaction. */
export type TransactionEnd =
  /** The terminal refused the command itself (84 xx); nothing ran. */
  | { outcome: 'refused'; error: number; data: Buffer }
  | { outcome: 'completed'; data: Buffer; statuses: Field[][]; printed: string[] }
  | { outcome: 'aborted'; resultCode: number; data: Buffer; statuses: Field[][]; printed: string[] };

export interface TransactionHandlers {
  /**
   * Status information (04 0F): resolves to the answer, sent only then (the caller journals first).
   * Without a handler it is refused (84 83): status information a transaction did not ask for belongs
   * to another one (a payment whose cash register gave up on it), and refused, the terminal reverses it.
   */
  onStatus?(fields: Field[]): Promise<Apdu>;
  onIntermediate?(status: number): void;
  /** A print line (06 D1): resolves to the answer (84 CC when the printer is not ready). Default: taken. */
  onPrint?(text: string): Promise<Apdu>;
  /** Read card (06 C0): its status information hands the line back, with no Completion (PA00P015 §2.21). */
  endsWithStatus?: boolean;
  /** Set date and time in the ECR (04 01): its data block (AA date, 0C time). Taken either way. */
  onDateTime?(data: Buffer): void;
}

/**
 * The error of a refusal (84 xx): xx, unless it is 1E, which carries the result code in its data (PA00P015 §2.1:
 * a CCV terminal answers 84 1E 01 7D, communication error).
 */
export function refusalCode(answer: Apdu): number {
  return answer.ins === 0x1e && answer.data.length > 0 ? answer.data[0]! : answer.ins;
}

type Waiter = { resolve: (message: Apdu) => void; reject: (error: Error) => void; timer: unknown };

export class EcrSession {
  private line: ZvtLine | null = null;
  private readonly inbox: Apdu[] = [];
  private waiter: Waiter | null = null;
  private readonly timers: Timers;

  constructor(
    private readonly log: (line: string) => void,
    timers?: Timers,
    private readonly answerTimeoutMs = T3_MS,
    /** T4, unless an intermediate status's timeout byte says otherwise (PA00P016 §5.2.6: adjustable). */
    private readonly masterTimeoutMs = T4_MS,
  ) {
    this.timers = timers ?? realTimers;
  }

  attach(line: ZvtLine): void {
    this.line = line;
    this.inbox.length = 0;
    line.on('apdu', (message: Apdu) => {
      if (this.line !== line) return;
      if (this.waiter) {
        const { resolve, timer } = this.waiter;
        this.waiter = null;
        this.timers.clearTimeout(timer);
        resolve(message);
      } else this.inbox.push(message);
    });
    line.once('close', (error: Error) => {
      if (this.line !== line) return;
      this.fail(error instanceof LineError ? error : new LineError('DISCONNECTED', error.message, ZVT));
    });
  }

  /** Sends `command` and, when it hands the terminal the line (`completes`), follows it to its end. */
  async transact(command: Apdu, completes: boolean, handlers: TransactionHandlers = {}): Promise<TransactionEnd> {
    const line = this.current();
    this.inbox.length = 0; // whatever came unasked before this command is not its answer
    await line.send(command);
    const first = await this.next(this.answerTimeoutMs, `no answer to ${commandName(command)} within T3`);
    if (!isAnswer(first))
      throw new BridgeError(
        'DEVICE_OUT_OF_STEP',
        `${commandName(command)} answered with ${hex(encodeApdu(first))}`,
        ZVT,
      );
    if (first.cls === 0x84 && first.ins !== 0x00)
      return { outcome: 'refused', error: refusalCode(first), data: first.data };
    if (!completes) return { outcome: 'completed', data: first.data, statuses: [], printed: [] };
    const statuses: Field[][] = [];
    const printed: string[] = [];
    let t4 = this.masterTimeoutMs;
    for (;;) {
      const message = await this.next(
        t4,
        `the terminal was silent for ${t4 / 1000} s (T4) during ${commandName(command)}`,
      );
      if (is(message, 'intermediateStatus')) {
        const minutes = message.data.length >= 2 ? bcdValue(message.data.subarray(1, 2)) : 0;
        if (minutes > 0) t4 = minutes * 60_000;
        handlers.onIntermediate?.(message.data[0] ?? 0);
        await this.answer(POSITIVE);
      } else if (is(message, 'statusInformation')) {
        const fields = decodeFields(message.data);
        statuses.push(fields);
        if (!handlers.onStatus)
          this.log(
            `status information during ${commandName(command)}, which asks for none: refused, so the terminal reverses it`,
          );
        await this.answer(handlers.onStatus ? await handlers.onStatus(fields) : refused(ERRORS.functionNotPossible));
        if (handlers.endsWithStatus) return { outcome: 'completed', data: Buffer.alloc(0), statuses, printed };
      } else if (is(message, 'printLine')) {
        const text = message.data.subarray(1).toString('latin1');
        printed.push(text);
        await this.answer(handlers.onPrint ? await handlers.onPrint(text) : POSITIVE);
      } else if (is(message, 'printTextBlock')) {
        const container = decodeFields(message.data).find((field) => field.bmp === 0x06)?.tlv ?? [];
        for (const line of findTlv(container, '25')?.children ?? [])
          if (line.tag === '07') printed.push(line.value.toString('latin1'));
        await this.answer(POSITIVE);
      } else if (is(message, 'setEcrDateTime')) {
        // The host's date and time after a diagnosis (PA00P015 §3.4): this cash register keeps its own clock.
        handlers.onDateTime?.(message.data);
        await this.answer(POSITIVE);
      } else if (is(message, 'completion')) {
        await this.answer(POSITIVE);
        return { outcome: 'completed', data: message.data, statuses, printed };
      } else if (is(message, 'abort')) {
        await this.answer(POSITIVE);
        return { outcome: 'aborted', resultCode: message.data[0] ?? 0xff, data: message.data, statuses, printed };
      } else if (isAnswer(message)) {
        // The terminal's answer to a cancel (06 B0) sent meanwhile: its Abort follows.
      } else {
        this.log(`the terminal sent ${commandName(message)}, which this cash register does not take: 84 83`);
        await this.answer(refused(ERRORS.functionNotPossible));
      }
    }
  }

  /** Asks the terminal to abort the transaction under way (06 B0: the customer walked away); its Abort ends it. */
  async cancel(): Promise<void> {
    await this.current().send(command('abortFromEcr'));
  }

  private async answer(message: Apdu): Promise<void> {
    await this.current().send(message);
  }

  private current(): ZvtLine {
    if (!this.line || this.line.isClosed) throw new LineError('DISCONNECTED', 'no line to the terminal', ZVT);
    return this.line;
  }

  private next(timeoutMs: number, why: string): Promise<Apdu> {
    const queued = this.inbox.shift();
    if (queued) return Promise.resolve(queued);
    if (!this.line || this.line.isClosed)
      return Promise.reject(new LineError('DISCONNECTED', 'the line to the terminal closed', ZVT));
    return new Promise((resolve, reject) => {
      const timer = this.timers.setTimeout(() => {
        this.waiter = null;
        reject(new LineError('NO_ANSWER', why, ZVT));
      }, timeoutMs);
      this.waiter = { resolve, reject, timer };
    });
  }

  private fail(error: Error): void {
    const waiter = this.waiter;
    this.waiter = null;
    if (!waiter) return;
    this.timers.clearTimeout(waiter.timer);
    waiter.reject(error);
  }
}
