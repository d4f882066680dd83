import type { Duplex } from 'node:stream';
import { BridgeError, LineError } from '../errors.js';
import { Link } from '../protocol/link.js';
import type { Timers } from '../protocol/timers.js';
import { AnswerWaiter } from './answer-waiter.js';
import type { DialectContext, DialectLine } from './dialect.js';

/** A message of a dialect: its code says what it is. */
export type DeviceMessage = { code: string };

/** The answer a request awaits: the messages of its codes where the dialect's messages tell them apart by type, else any message. */
export type AnswerOf<Res extends DeviceMessage, C extends string> = [Extract<Res, { code: C }>] extends [never]
  ? Res
  : Extract<Res, { code: C }>;

/** How a dialect's messages cross the line: the host's requests as text, the device's text as answers, and the answers that are not. */
export interface DeviceCodec<Req extends DeviceMessage, Res extends DeviceMessage> {
  encode(message: Req): string;
  /** Throws on a payload it cannot read. */
  decode(payload: string): Res;
  /** A progress message the device sends while a request is worked (Transbank's 0900): passed on, never an answer. */
  isProgress?(message: Res): boolean;
  /** A message that fails the request awaited, as the device's own error. */
  deviceError?(message: Res): BridgeError | undefined;
}

/**
 * One request at a time on the device's line, in a dialect's messages:
 * sent, then its answer awaited (a timeout, the line closing or a device
 * error fail it). Whatever else the device sends is one log line.
 */
export class DeviceSession<Req extends DeviceMessage, Res extends DeviceMessage> {
  private link: Link | null = null;
  private readonly answers: AnswerWaiter<Res>;
  /** Where the running request's progress messages go. */
  private onProgress: ((message: Res) => void) | null = null;

  constructor(
    private readonly codec: DeviceCodec<Req, Res>,
    timers: Timers,
    private readonly log: (line: string) => void,
    /** What the log calls the device ("device", "POS"). */
    private readonly deviceName: string,
  ) {
    this.answers = new AnswerWaiter(timers);
  }

  /** A line opened: what the device sends on it comes here. */
  attach(link: Link): void {
    this.link = link;
    link.on('message', (payload: string) => this.received(payload));
    link.once('close', (error: LineError) => this.answers.fail(error));
  }

  detach(): void {
    this.link = null;
  }

  /** Sends a message that has no answer but the link's ACK (a poll). */
  async send(message: Req): Promise<void> {
    await this.line().send(this.codec.encode(message));
  }

  /** Sends `message` and waits at most `timeoutMs` for an answer whose code is among `expect`. */
  async request<C extends Res['code']>(
    message: Req,
    expect: readonly C[],
    timeoutMs: number,
    onProgress?: (message: Res) => void,
  ): Promise<AnswerOf<Res, C>> {
    const link = this.line();
    this.onProgress = onProgress ?? null;
    try {
      const answer = await this.answers.request(
        () => link.send(this.codec.encode(message)),
        expect.join('/'),
        (candidate) => (expect as readonly string[]).includes(candidate.code),
        timeoutMs,
        `no answer to ${message.code} within ${timeoutMs} ms`,
      );
      return answer as AnswerOf<Res, C>;
    } finally {
      this.onProgress = null;
    }
  }

  private line(): Link {
    if (!this.link) throw new LineError('DISCONNECTED', 'no line');
    return this.link;
  }

  private received(payload: string): void {
    let message: Res;
    try {
      message = this.codec.decode(payload);
    } catch (error) {
      return this.log(`unreadable message from the ${this.deviceName}: ${payload} (${(error as Error).message})`);
    }
    const awaited = this.answers.awaited;
    if (awaited !== null && this.codec.isProgress?.(message)) return this.onProgress?.(message);
    const failed = awaited !== null ? this.codec.deviceError?.(message) : undefined;
    if (failed) return this.answers.fail(failed);
    if (!this.answers.offer(message))
      this.log(
        `unexpected message from the ${this.deviceName}: ${payload}${awaited !== null ? ` while waiting for ${awaited}` : ''}`,
      );
  }
}

/**
 * The session of a dialect whose messages are text frames on the shared
 * link layer (STX/ETX/LRC, ACK/NAK: svc and Transbank), and how a line the
 * bridge opens becomes that link.
 */
export function framedSession<Req extends DeviceMessage, Res extends DeviceMessage>(
  codec: DeviceCodec<Req, Res>,
  context: Pick<DialectContext, 'timers' | 'log' | 'debug'>,
  deviceName: string,
): { session: DeviceSession<Req, Res>; connect(stream: Duplex): DialectLine } {
  const session = new DeviceSession(codec, context.timers, context.log, deviceName);
  return {
    session,
    connect: (stream) => {
      const link = new Link(stream, { timers: context.timers, ...(context.debug ? { debug: context.debug } : {}) });
      session.attach(link);
      return link;
    },
  };
}
