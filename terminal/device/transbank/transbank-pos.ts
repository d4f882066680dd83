import { randomInt } from 'node:crypto';
import type { Link } from '../../protocol/link.js';
import type { Timers } from '../../protocol/timers.js';
import {
  decodeRequest,
  encodeResponse,
  type RequestCode,
  type ResponseCode,
  type TransbankMessage,
} from '../../protocol/transbank/messages.js';
import { describeResponseCode, isKnownResponseCode } from '../../protocol/transbank/response-codes.js';
import { DeviceCore } from '../device-core.js';
import { answerRequest, newPos, outcomeFor, type PosState, type ChosenOutcome } from './pos-state.js';
import { CliError, type ProtocolError } from '../../errors.js';

/**
 * After its ACK, a POS answers no sooner than this: a cash register that
 * reads the line by silence (the official SDK cuts a packet after 100 ms
 * without a byte) sees the ACK on its own, and then the answer.
 */
export const TURNAROUND_MS = 150;

/** How long a customer takes at the terminal by default: from the sale's ACK to its answer. */
export const TRANSBANK_CARD_DELAY_MS = 1500;

export interface TransbankPosOptions {
  /** The terminal id (8 characters at most). */
  terminalId: string;
  commerceCode?: string;
  /** The terminal's memory: batch, operation counter, last sale. Written before every answer. */
  statePath?: string;
  cardDelayMs?: number;
  turnaroundMs?: number;
  timers?: Timers;
  log?: (line: string) => void;
  /** Draws authorisation codes and card digits (a seeded one answers the same bytes to the same requests: transcripts). */
  random?: () => number;
  /** The POS's clock for the date and time it stamps on a sale; a stopped one for transcripts. */
  clock?: () => Date;
  /** The routine polls too (--debug). */
  verbose?: boolean;
}

/**
 * An emulated Transbank POS Integrado on a link: ACKs each request (the
 * link does), works it like a terminal (a sale takes the card delay, with
 * the status messages spread over it when asked), and answers.
 * Requests are worked one at a time, in the order they came.
 */
export class TransbankPos {
  private readonly core: DeviceCore<PosState>;
  private nextOutcome: ChosenOutcome | null = null;

  constructor(private readonly options: TransbankPosOptions) {
    this.core = new DeviceCore<PosState>({
      ...(options.statePath ? { statePath: options.statePath } : {}),
      load: (journal) =>
        journal
          ? checked(journal, options.statePath!, options.terminalId)
          : newPos(options.terminalId, options.commerceCode),
      ...(options.timers ? { timers: options.timers } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
  }

  get snapshot(): PosState {
    return this.core.state;
  }

  private get state(): PosState {
    return this.core.state;
  }

  /** Speaks over this line from now on. Requests are worked one at a time, in the order they came. */
  attach(link: Link): void {
    this.core.attach(link, (payload) => this.onRequest(payload), true);
  }

  /** Resolves once every request received so far has been answered. */
  idle(): Promise<void> {
    return this.core.idle();
  }

  /** An operator command, as typed on stdin; answers what happened. */
  operator(line: string): string {
    const [command, argument] = line.trim().split(/\s+/);
    switch (command) {
      case 'next': {
        if (argument === 'approve' || argument === 'credit') this.nextOutcome = { approve: true, cardType: 'CR' };
        else if (argument === 'debit') this.nextOutcome = { approve: true, cardType: 'DB' };
        else if (argument && /^\d{2}$/.test(argument) && argument !== '00' && isKnownResponseCode(argument))
          this.nextOutcome = { approve: false, responseCode: argument };
        else return 'next: approve | credit | debit | a response code such as 05';
        return `the next sale: ${this.nextOutcome.approve ? `approved, ${this.nextOutcome.cardType === 'DB' ? 'debit' : 'credit'}` : `refused ${describeResponseCode(this.nextOutcome.responseCode, '0200')}`}`;
      }
      case 'integrated':
        this.commit({ ...this.state, mode: 'integrated' });
        return 'integrated mode: answering the cash register';
      case 'unload-keys':
        this.commit({ ...this.state, keysLoaded: false });
        return 'keys unloaded: sales answer 26 until the cash register loads keys (0800)';
      case 'status': {
        const { batch, lastSale } = this.state;
        return [
          `terminal ${this.state.terminalId}, commerce ${this.state.commerceCode}, ${this.state.mode} mode, keys ${this.state.keysLoaded ? 'loaded' : 'not loaded'}`,
          `batch: ${batch.length} sale(s), ${batch.reduce((sum, sale) => sum + (sale.refunded ? 0 : sale.amount), 0)} CLP; days closed: ${this.state.closes}`,
          `last sale: ${lastSale ? `${lastSale.operationNumber} ticket ${lastSale.ticket} ${lastSale.amount} CLP${lastSale.refunded ? ' (refunded)' : ''}` : 'none'}`,
        ].join('\n');
      }
      default:
        return 'commands: next approve|debit|RC, integrated, unload-keys, status';
    }
  }

  private async onRequest(payload: string): Promise<void> {
    let request: TransbankMessage<RequestCode>;
    try {
      request = decodeRequest(payload);
    } catch (error) {
      const refusal = refusalFor(payload, error as ProtocolError, this.state);
      this.core.log(
        `cash register ${payload}: ${(error as Error).message}${refusal ? `; answered ${describeResponseCode(refusal.fields.responseCode as string, '0200')}` : '; not answered'}`,
      );
      if (refusal) await this.answer([refusal], this.options.turnaroundMs ?? TURNAROUND_MS);
      return;
    }
    const outcome = () => {
      const chosen = outcomeFor(request.fields.amount as number, this.nextOutcome, isKnownResponseCode);
      this.nextOutcome = null;
      return {
        outcome: chosen,
        authorizationCode: String(this.draw(1_000_000)).padStart(6, '0'),
        last4Digits: String(this.draw(10_000)).padStart(4, '0'),
        now: this.options.clock?.() ?? this.core.now(),
      };
    };
    const reply = answerRequest(this.state, request, outcome);
    const isSale = request.code === '0200' || request.code === '0270';
    const cardDelay = Math.max(this.options.cardDelayMs ?? TRANSBANK_CARD_DELAY_MS, 0);
    const turnaround = this.options.turnaroundMs ?? TURNAROUND_MS;
    // The customer at the terminal: status messages spread over the card delay.
    const step = isSale ? cardDelay / (reply.status.length + 1) : 0;
    for (const status of reply.status) await this.answer([status], Math.max(step, turnaround));
    // The terminal's memory changes before the cash register can hear of it.
    this.commit(reply.state);
    // The cash register polls (0100) every cycle: logged with --debug only, so what changes something stands out.
    if (request.code !== '0100' || this.options.verbose)
      this.core.log(
        `cash register ${payload} → ${reply.answers.map((each) => encodeResponse(each)).join(' ; ') || reply.note || 'ACK only'}`,
      );
    if (reply.answers.length > 0) await this.answer(reply.answers, Math.max(isSale ? step : 0, turnaround));
  }

  /** Sends each answer after `wait` ms, waiting for its ACK before the next. */
  private async answer(answers: Array<TransbankMessage<ResponseCode>>, wait: number): Promise<void> {
    for (const each of answers) {
      await this.core.wait(wait);
      if (!(await this.core.send(encodeResponse(each), each.code))) return;
    }
  }

  /** A whole number below `bound`. */
  private draw(bound: number): number {
    return this.options.random ? Math.floor(this.options.random() * bound) : randomInt(bound);
  }

  private commit(next: PosState): void {
    this.core.commit(next);
  }
}

/** A sale whose fields the terminal cannot read is refused with the reference's code for it; anything else gets no answer. */
function refusalFor(payload: string, error: ProtocolError, state: PosState): TransbankMessage<ResponseCode> | null {
  const code = payload.slice(0, 4);
  if (code !== '0200' && code !== '0270') return null;
  const responseCode = error.field === 'ticket' ? '70' : error.field === 'amount' ? '68' : '61';
  return {
    code: code === '0270' ? '0271' : '0210',
    fields: { responseCode, commerceCode: state.commerceCode, terminalId: state.terminalId, amount: 0 },
  };
}

/** A journal's state, checked as this terminal's. */
function checked(loaded: PosState, path: string, terminalId: string): PosState {
  if (loaded.terminalId !== terminalId.slice(0, 8))
    throw new CliError('COMMAND_FAILED', `${path} is the memory of terminal ${loaded.terminalId}, not ${terminalId}`);
  // A memory written before the count was kept starts it at nought.
  return { ...loaded, settledSales: loaded.settledSales ?? 0 };
}
