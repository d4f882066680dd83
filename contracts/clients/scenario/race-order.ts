// What a race scenario leaves (its `final` capture: the order as the
// merchant reads it at the end), read one way by the race's report and by
// the console: the order, and which side the server applied first.

export type Side = 'merchant' | 'pos' | 'neither';

export interface RaceOrder {
  orderId: string;
  amount: number;
  status: string;
  history: Array<{ from: string; to: string }>;
}

/** The capture's order, or undefined when it holds none (the scenario stopped before reading it). */
export function raceOrderOf(capture: unknown): RaceOrder | undefined {
  const data = (capture as { data?: Partial<RaceOrder> } | undefined)?.data;
  if (typeof data?.orderId !== 'string' || typeof data.status !== 'string' || !Array.isArray(data.history))
    return undefined;
  return { orderId: data.orderId, amount: Number(data.amount ?? 0), status: data.status, history: data.history };
}

/** Whose request changed the order first: the merchant's discard (PENDING → DISCARDED) or the POS's commit (PENDING → PAID). */
export function takenFirst(history: ReadonlyArray<{ to: string }>): Side {
  const first = history[0]?.to;
  return first === 'DISCARDED' ? 'merchant' : first === 'PAID' ? 'pos' : 'neither';
}
