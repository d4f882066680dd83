import { randomBytes } from 'node:crypto';
import type { Link } from '../protocol/link.js';
import { decodeMessage, encodeMessage, MessageError } from '../protocol/messages.js';
import { realTimers, type Timers } from '../protocol/timers.js';
import { readJournalSync, writeJournalSync } from './journal-file.js';
import { answer, approve, closeBatch, decline, newDevice, queueSettlement, voidOrder, type DeviceState } from './device-state.js';

export interface EmulatorOptions {
  serial: string;
  firmware?: string;
  /**
   * The device's journal, as a real terminal keeps one in flash: unconfirmed
   * records, the batch number, approved orders. Loaded at start and written
   * (durably) on every change, before the device answers on the line.
   */
  statePath?: string;
  /** Approve charges (and voids) this long after the host asks; null waits for the operator. */
  autoApproveMs?: number | null;
  timers?: Timers;
  log?: (line: string) => void;
}

/**
 * An emulated POS device: answers the host over the link and holds the
 * device state. Charges are approved after `autoApproveMs` or by the
 * operator (`approve`, `decline`, `void`, `close`, `status`).
 */
export class EmulatedTerminal {
  private state: DeviceState;
  private link: Link | null = null;
  private readonly timers: Timers;
  private readonly log: (line: string) => void;

  constructor(private readonly options: EmulatorOptions) {
    this.state = (options.statePath ? loadDevice(options.statePath, options.serial) : undefined) ?? newDevice(options.serial, options.firmware);
    this.timers = options.timers ?? realTimers;
    this.log = options.log ?? (() => undefined);
    // Charges and voids the journal kept from before a restart are approved as if just asked.
    for (const charge of this.state.charges) this.autoApprove('approve', charge.orderId);
    for (const orderId of this.state.voids) this.autoApprove('void', orderId);
  }

  private autoApprove(command: 'approve' | 'void', orderId: string): void {
    const auto = this.options.autoApproveMs;
    if (auto === null || auto === undefined) return;
    this.timers.setTimeout(() => this.log(this.operator(`${command} ${orderId}`)), auto);
  }

  /** Speaks over this line from now on; the device's state outlives a line that goes away. */
  attach(link: Link): void {
    this.link = link;
    link.on('message', (payload: string) => void this.onRequest(payload));
  }

  get snapshot(): DeviceState {
    return this.state;
  }

  /** Queues a batch close with these fields as a record for the host (replay through the device). */
  queueSettlement(settlement: Parameters<typeof queueSettlement>[1]): void {
    this.commit(queueSettlement(this.state, settlement));
  }

  /** The new state, written to the journal (when there is one) before anything depends on it. */
  private commit(next: DeviceState): void {
    if (next === this.state) return;
    if (this.options.statePath) writeJournalSync(this.options.statePath, next);
    this.state = next;
  }

  /** An operator command, as typed on stdin; answers what happened. */
  operator(line: string): string {
    const [command, argument] = line.trim().split(/\s+/);
    const now = new Date(this.timers.now()).toISOString();
    switch (command) {
      case 'approve': {
        const orderId = argument ?? this.state.charges[0]?.orderId;
        if (!orderId) return 'no charge waiting';
        this.commit(approve(this.state, orderId, now, authorizationCode()));
        return `approved ${orderId}`;
      }
      case 'decline': {
        const orderId = argument ?? this.state.charges[0]?.orderId;
        if (!orderId) return 'no charge waiting';
        this.commit(decline(this.state, orderId));
        return `declined ${orderId}`;
      }
      case 'void': {
        const orderId = argument ?? this.state.voids[0];
        if (!orderId) return 'no void waiting';
        this.commit(voidOrder(this.state, orderId, now));
        return `voided ${orderId}`;
      }
      case 'close':
        this.commit(closeBatch(this.state, now));
        return `batch closed (record ${this.state.nextSeq - 1})`;
      case 'status':
        return [
          `serial ${this.state.serial}, batch ${this.state.batch.count} sale(s)`,
          `charges waiting: ${this.state.charges.map((c) => `${c.orderId} ${c.amount} ${c.currency}`).join(', ') || 'none'}`,
          `voids waiting: ${this.state.voids.join(', ') || 'none'}`,
          `records unconfirmed: ${this.state.records.map((r) => `${r.seq}:${r.code}`).join(', ') || 'none'}`,
        ].join('\n');
      default:
        return 'commands: approve [orderId], decline [orderId], void [orderId], close, status';
    }
  }

  private async onRequest(payload: string): Promise<void> {
    let request;
    try {
      request = decodeMessage(payload);
    } catch (error) {
      await this.reply(encodeMessage({ code: '0990', errorCode: '02', text: (error as MessageError).message.slice(0, 200) }));
      return;
    }
    const { state, reply } = answer(this.state, request);
    this.commit(state); // on disk before the host hears the answer
    this.log(`host ${payload} → ${encodeMessage(reply)}`);
    await this.reply(encodeMessage(reply));
    if (request.code === '0300' && reply.code === '0310' && reply.rc === '00') this.autoApprove('approve', request.orderId);
    if (request.code === '0320') this.autoApprove('void', request.orderId);
  }

  private async reply(payload: string): Promise<void> {
    try {
      if (!this.link) throw new Error('no line attached');
      await this.link.send(payload);
    } catch (error) {
      this.log(`could not answer ${payload.slice(0, 4)}: ${(error as Error).message}`);
    }
  }
}

function loadDevice(path: string, serial: string): DeviceState | undefined {
  const loaded = readJournalSync<DeviceState>(path);
  if (!loaded) return undefined;
  if (loaded.serial !== serial) throw new Error(`${path} is the journal of device ${loaded.serial}, not ${serial}`);
  // Journals written before these fields existed.
  return { ...loaded, approved: loaded.approved ?? [], declined: loaded.declined ?? [], voided: loaded.voided ?? [], lastCloseId: loaded.lastCloseId ?? null };
}

function authorizationCode(): string {
  return randomBytes(3).toString('hex').toUpperCase();
}
