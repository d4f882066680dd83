import type { Duplex } from 'node:stream';
import type { PosClient } from '../pos-client.js';
import { Link, LinkError } from '../protocol/link.js';
import { decodeMessage, encodeMessage, type Message, type MessageCode, type RecordMessage } from '../protocol/messages.js';
import { realTimers, type Timers } from '../protocol/timers.js';

/** A serial port stream; a real one must be closed (not just destroyed) to release its lock. */
export type SerialLine = Duplex & { close?: (callback: (error?: Error | null) => void) => void; isOpen?: boolean };

export interface BridgeOptions {
  /** Opens the serial line (a real port, a pseudo-terminal, a mock). */
  open: () => Promise<SerialLine>;
  client: PosClient;
  timers?: Timers;
  /** Time to wait for the device's answer to a request. */
  answerTimeoutMs?: number;
  /** Between two cycles (heartbeat, orders, records). */
  pollMs?: number;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  log?: (line: string) => void;
  debug?: (line: string) => void;
}

class NoAnswerError extends Error {}

/**
 * Drives one device for one terminal. Each cycle: a heartbeat (0100); the
 * server's PENDING orders of the terminal asked to be charged (0300) and its
 * VOID_PENDING orders asked to be voided (0320); then every record the
 * device holds (0250) sent, signed, to the server, and confirmed to the
 * device (0270) only after the server answered 2xx, or 409 for what it
 * already has. A record is never confirmed before the server has it, and
 * the server's idempotency means a record sent twice is applied once.
 * A dead line is closed and reopened with backoff.
 */
export class Bridge {
  private link: Link | null = null;
  private port: SerialLine | null = null;
  private stopped = false;
  private readonly timers: Timers;
  private readonly log: (line: string) => void;
  private readonly asked = new Set<string>();
  private backoff: number;
  private waiting: { expect: MessageCode[]; resolve: (m: Message) => void; reject: (e: Error) => void; timer: unknown } | null = null;

  constructor(private readonly options: BridgeOptions) {
    this.timers = options.timers ?? realTimers;
    this.log = options.log ?? (() => undefined);
    this.backoff = options.minBackoffMs ?? 500;
  }

  /** Runs cycles until stop(); reconnects after a dead line. */
  async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.connect();
        this.backoff = this.options.minBackoffMs ?? 500;
        while (!this.stopped && this.link && !this.link.isClosed) {
          await this.cycle();
          await this.sleep(this.options.pollMs ?? 1000);
        }
      } catch (error) {
        if (this.stopped) break;
        this.log(`line down: ${(error as Error).message}; reconnecting in ${this.backoff} ms`);
      }
      await this.disconnect();
      if (this.stopped) break;
      await this.sleep(this.backoff);
      this.backoff = Math.min(this.options.maxBackoffMs ?? 10_000, this.backoff * 2);
    }
    await this.disconnect();
  }

  stop(): Promise<void> {
    this.stopped = true;
    return this.disconnect();
  }

  /** Opens the line (if needed) and runs one cycle; for tests and one-shot use. */
  async cycle(): Promise<{ charged: number; voided: number; recorded: number }> {
    if (!this.link || this.link.isClosed) await this.connect();
    const status = await this.request({ code: '0100' }, ['0110']);
    if (status.code === '0110') this.options.debug?.(`device ${status.serial} firmware ${status.firmware}, ${status.pendingCount} record(s) pending`);
    const charged = await this.askDevice('PENDING', (order) => ({ code: '0300', orderId: order.orderId, amount: order.amount, currency: order.currency }), '0310');
    const voided = await this.askDevice('VOID_PENDING', (order) => ({ code: '0320', orderId: order.orderId }), '0330');
    let recorded = 0;
    for (;;) {
      const next = await this.request({ code: '0250' }, ['0210', '0230', '0520', '0260']);
      if (next.code === '0260') break;
      if (!(await this.deliver(next as RecordMessage))) break;
      const confirmed = await this.request({ code: '0270', seq: (next as RecordMessage).seq }, ['0280']);
      if (confirmed.code !== '0280' || confirmed.seq !== (next as RecordMessage).seq) throw new Error(`the device confirmed ${JSON.stringify(confirmed)} instead of ${(next as RecordMessage).seq}`);
      recorded += 1;
    }
    return { charged, voided, recorded };
  }

  private async askDevice(status: 'PENDING' | 'VOID_PENDING', ask: (order: { orderId: string; amount: number; currency: string }) => Message, answer: MessageCode): Promise<number> {
    const listed = await this.options.client.listOrders({ status, size: 100 });
    if (listed.status !== 200) {
      this.log(`listing ${status} orders failed: ${listed.status} ${listed.body.message ?? ''}`);
      return 0;
    }
    let asked = 0;
    for (const order of listed.body.data as Array<{ orderId: string; amount: number; currency: string }>) {
      const key = `${status}:${order.orderId}`;
      if (this.asked.has(key)) continue;
      const reply = await this.request(ask(order), [answer]);
      if ((reply as { rc?: string }).rc === '00') {
        this.asked.add(key);
        asked += 1;
        this.log(`${status === 'PENDING' ? 'charge' : 'void'} ${order.orderId} sent to the device`);
      } else {
        this.log(`the device refused ${encodeMessage(ask(order))}: ${encodeMessage(reply)}`);
      }
    }
    return asked;
  }

  /** Sends one record to the server; true when the server has it (2xx, or 409 for what it already holds). */
  private async deliver(record: RecordMessage): Promise<boolean> {
    const { client } = this.options;
    let response;
    try {
      response =
        record.code === '0210'
          ? await client.commitPayment(record.orderId, { authorizationCode: record.authorizationCode, paidAt: record.paidAt, amount: record.amount })
          : record.code === '0230'
            ? await client.commitVoid(record.orderId)
            : await client.notifySettlement({ batchNumber: record.batchNumber, transactionCount: record.transactionCount, closedAt: record.closedAt, currencyReference: record.currencyReference, terminal: record.terminal, debitBatch: record.debitBatch });
    } catch (error) {
      this.log(`record ${record.seq} (${record.code}) not delivered, will retry: ${(error as Error).message}`);
      return false;
    }
    if ((response.status >= 200 && response.status < 300) || response.status === 409) {
      this.log(`record ${record.seq} (${record.code}) → server ${response.status}${response.status === 409 ? ` (${response.body.code}: already recorded there)` : ''}`);
      return true;
    }
    this.log(`record ${record.seq} (${record.code}) refused by the server (${response.status} ${response.body.code ?? ''}: ${response.body.message ?? ''}); kept on the terminal`);
    return false;
  }

  private async request(message: Message, expect: MessageCode[]): Promise<Message> {
    const link = this.link;
    if (!link) throw new Error('no line');
    const answered = new Promise<Message>((resolve, reject) => {
      const timer = this.timers.setTimeout(() => {
        this.waiting = null;
        reject(new NoAnswerError(`no answer to ${message.code} within ${this.options.answerTimeoutMs ?? 3000} ms`));
      }, this.options.answerTimeoutMs ?? 3000);
      this.waiting = { expect, resolve, reject, timer };
    });
    // When sending fails, the line's close also rejects the answer nobody waits for yet.
    answered.catch(() => undefined);
    try {
      await link.send(encodeMessage(message));
    } catch (error) {
      if (this.waiting) this.timers.clearTimeout(this.waiting.timer);
      this.waiting = null;
      throw error;
    }
    return answered;
  }

  private onMessage(payload: string): void {
    const waiting = this.waiting;
    let message: Message;
    try {
      message = decodeMessage(payload);
    } catch (error) {
      this.log(`unreadable message from the device: ${payload} (${(error as Error).message})`);
      return;
    }
    if (!waiting) return this.log(`unexpected message from the device: ${payload}`);
    if (!waiting.expect.includes(message.code) && message.code !== '0990') return this.log(`ignored ${payload} while waiting for ${waiting.expect.join('/')}`);
    this.timers.clearTimeout(waiting.timer);
    this.waiting = null;
    if (message.code === '0990') waiting.reject(new Error(`device error ${message.errorCode}: ${message.text}`));
    else waiting.resolve(message);
  }

  private async connect(): Promise<void> {
    const port = await this.options.open();
    this.port = port;
    this.link = new Link(port, { timers: this.timers, ...(this.options.debug ? { debug: this.options.debug } : {}) });
    this.link.on('message', (payload: string) => this.onMessage(payload));
    this.link.once('close', (error: LinkError) => {
      this.waiting?.reject(error);
      this.waiting = null;
    });
    this.log('line open');
  }

  private async disconnect(): Promise<void> {
    const link = this.link;
    const port = this.port;
    this.link = null;
    this.port = null;
    if (link && !link.isClosed) link.close();
    if (!port) return;
    // Release the device path (a serial port holds a lock until closed), so that reopening it can succeed.
    if (port.close && port.isOpen !== false) await new Promise<void>((resolve) => port.close!(() => resolve()));
    if (!port.destroyed) port.destroy();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.timers.setTimeout(resolve, ms));
  }
}
