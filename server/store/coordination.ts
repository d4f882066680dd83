// The coordination part of the store port: what instances sharing one store
// need to agree on (who works on a record, messages between them). With one
// instance (the embedded store) both are trivially its own.

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

/** Leases on records and the bus between instances. */
export interface InstanceCoordination {
  /**
   * Leases existing records of `collection` to this instance for `ms`, so
   * that instances sharing the store never work on the same one at once:
   * answers the ids among `ids` that no other instance holds (by a live
   * lease, or by a row lock it is taking right now, which is skipped and
   * never waited for). A lease of this instance's own is renewed.
   */
  lease(collection: string, ids: readonly string[], ms: number): Promise<string[]>;
  /** Gives this instance's leases back before they expire. */
  release(collection: string, ids: readonly string[]): Promise<void>;
  /** Messages between the instances sharing this store. */
  readonly bus: InstanceBus;
}
