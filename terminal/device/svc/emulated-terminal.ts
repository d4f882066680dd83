import { randomBytes } from 'node:crypto';
import type { Link } from '../../protocol/link.js';
import { decodeMessage, encodeMessage } from '../../protocol/svc/messages.js';
import type { Timers } from '../../protocol/timers.js';
import { DeviceCore } from '../device-core.js';
import {
  answer,
  approve,
  closeBatch,
  decline,
  newDevice,
  queueSettlement,
  voidOrder,
  type DeviceState,
} from './device-state.js';
import { CliError } from '../../errors.js';

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
  /** The routine exchanges too (polls, an empty record queue): --debug. Without it, only what changes something is logged. */
  verbose?: boolean;
}

/**
 * An emulated POS device: answers the host over the link and holds the
 * device state. Charges are approved after `autoApproveMs` or by the
 * operator (`approve`, `decline`, `void`, `close`, `status`).
 */
export class EmulatedTerminal {
  private readonly core: DeviceCore<DeviceState>;

  constructor(private readonly options: EmulatorOptions) {
    this.core = new DeviceCore<DeviceState>({
      ...(options.statePath ? { statePath: options.statePath } : {}),
      load: (journal) =>
        journal ? upgraded(journal, options.statePath!, options.serial) : newDevice(options.serial, options.firmware),
      ...(options.timers ? { timers: options.timers } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
    // Charges and voids the journal kept from before a restart are approved as if just asked.
    for (const charge of this.state.charges) this.autoApprove('approve', charge.orderId);
    for (const orderId of this.state.voids) this.autoApprove('void', orderId);
  }

  private autoApprove(command: 'approve' | 'void', orderId: string): void {
    const auto = this.options.autoApproveMs;
    if (auto === null || auto === undefined) return;
    this.core.timers.setTimeout(() => this.core.log(this.operator(`${command} ${orderId}`)), auto);
  }

  /** Speaks over this line from now on; the device's state outlives a line that goes away. Requests are answered as they come. */
  attach(link: Link): void {
    this.core.attach(link, (payload) => this.onRequest(payload), false);
  }

  get snapshot(): DeviceState {
    return this.core.state;
  }

  private get state(): DeviceState {
    return this.core.state;
  }

  /** Queues a batch close with these fields as a record for the host (replay through the device). */
  queueSettlement(settlement: Parameters<typeof queueSettlement>[1]): void {
    this.commit(queueSettlement(this.state, settlement));
  }

  private commit(next: DeviceState): void {
    this.core.commit(next);
  }

  /** An operator command, as typed on stdin; answers what happened. */
  operator(line: string): string {
    const [command, argument] = line.trim().split(/\s+/);
    const now = this.core.now().toISOString();
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
      await this.reply(encodeMessage({ code: '0990', errorCode: '02', text: (error as Error).message.slice(0, 200) }));
      return;
    }
    const { state, reply } = answer(this.state, request);
    this.commit(state); // on disk before the host hears the answer
    // A poll every second, and "no record" to each ask for one, would bury what an operator types and reads.
    const routine = request.code === '0100' || (request.code === '0250' && reply.code === '0260');
    if (!routine || this.options.verbose) this.core.log(`host ${payload} → ${encodeMessage(reply)}`);
    await this.reply(encodeMessage(reply));
    if (request.code === '0300' && reply.code === '0310' && reply.rc === '00')
      this.autoApprove('approve', request.orderId);
    if (request.code === '0320') this.autoApprove('void', request.orderId);
  }

  private async reply(payload: string): Promise<void> {
    await this.core.send(payload);
  }
}

/** A journal's state, checked as this device's, with the fields journals written before them lacked. */
function upgraded(loaded: DeviceState, path: string, serial: string): DeviceState {
  if (loaded.serial !== serial)
    throw new CliError('COMMAND_FAILED', `${path} is the journal of device ${loaded.serial}, not ${serial}`);
  // Journals written before these fields existed.
  return {
    ...loaded,
    approved: loaded.approved ?? [],
    declined: loaded.declined ?? [],
    voided: loaded.voided ?? [],
    lastCloseId: loaded.lastCloseId ?? null,
  };
}

function authorizationCode(): string {
  return randomBytes(3).toString('hex').toUpperCase();
}
