import { EventEmitter } from 'node:events';
import type { BusMessage, InstanceBus } from '../coordination.js';

/** The bus of a single instance: an in-process emitter. */
export class LocalBus implements InstanceBus {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  async publish(channel: string, message: BusMessage): Promise<void> {
    // Asynchronous like the network: a listener never runs inside the publisher's call.
    setImmediate(() => this.emitter.emit(channel, message));
  }

  async subscribe(channel: string, listener: (message: BusMessage) => void): Promise<() => void> {
    this.emitter.on(channel, listener);
    return () => this.emitter.off(channel, listener);
  }
}
