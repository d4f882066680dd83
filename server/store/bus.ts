import { EventEmitter } from 'node:events';

/** A message between instances: a small JSON object. */
export type BusMessage = Readonly<Record<string, unknown>>;

/**
 * Messages between the server instances sharing a store. With PostgreSQL
 * they cross processes (LISTEN/NOTIFY); with the embedded store there is one
 * instance per data directory, so they stay within it. Delivery is
 * best-effort: whoever relies on an answer also sets a time limit.
 */
export interface InstanceBus {
  publish(channel: string, message: BusMessage): Promise<void>;
  /** Starts listening; resolves once messages published from now on will arrive. Answers the unsubscribe. */
  subscribe(channel: string, listener: (message: BusMessage) => void): Promise<() => void>;
}

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
