import { machineCpu, percentile, stealPercent } from './stats.js';
import { encodeRequest, LeanConnection } from './lean-connection.js';

export interface PacedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface PacedResult {
  sent: number;
  completed: number;
  non2xx: number;
  errors: number;
  /** What the first failed request failed with. */
  firstError?: string;
  /** From each request's due time to its answer's end: queueing in the generator counts. */
  p50: number;
  p99: number;
  max: number;
  /** How late the generator sent: from due time to the request leaving. */
  sendLagP99: number;
  /** From the request leaving to its answer's end: what the server and the network took. */
  answerP50: number;
  answerP99: number;
  /** The share of the machine's CPU time the hypervisor took for other guests during the run, in %; null without /proc. */
  steal: number | null;
}

/** Answers `result` when every request got a 2xx; throws, naming `title` and the first failure, otherwise. */
export function requireAllAnswered(title: string, result: PacedResult): PacedResult {
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(
      `${title}: ${result.non2xx} non-2xx answers and ${result.errors} errors${result.firstError ? ` (first: ${result.firstError})` : ''}`,
    );
  }
  return result;
}

/** Free connections are closed after this long, before the server's own keep-alive close (5 s) can race a request. */
const STALE_AFTER_MS = 2000;

/**
 * Open-loop load at a steady rate: requests leave evenly spaced (checked
 * every millisecond), whatever the answers do, and each latency runs from
 * the moment a request was due to its answer's end, so queueing counts.
 * (autocannon's overallRate enforces a per-second quota, which sends
 * bursts at full speed and idles the rest of each second.) Requests go
 * out on lean kept-alive connections (one request at a time each, opened
 * as needed up to maxSockets), so the generator takes less of the CPU
 * the server it measures needs (see LeanConnection).
 */
export async function pacedLoad(options: {
  baseUrl: string;
  rate: number;
  durationS: number;
  /** Seconds at the same rate before measuring (sockets opened, code warm). Default 2. */
  warmupS?: number;
  next: () => PacedRequest;
  maxSockets?: number;
}): Promise<PacedResult> {
  const { hostname, port, host } = new URL(options.baseUrl);
  const maxSockets = options.maxSockets ?? 256;
  /** Free connections, most recently used last. */
  const idle: Array<{ connection: LeanConnection; since: number }> = [];
  const all = new Set<LeanConnection>();
  let opening = 0;
  /** Requests due while every connection was busy, given one as one frees up. */
  const waiting: Array<{ resolve: (connection: LeanConnection) => void; reject: (error: Error) => void }> = [];
  const latencies: number[] = [];
  const answers: number[] = [];
  const lags: number[] = [];
  let non2xx = 0;
  let errors = 0;
  let firstError: string | undefined;
  const inFlight = new Set<Promise<void>>();
  const machineBefore = machineCpu();
  const started = performance.now();
  const measureFrom = started + (options.warmupS ?? 2) * 1000;
  const end = measureFrom + options.durationS * 1000;

  const open = async (): Promise<LeanConnection> => {
    opening += 1;
    let opened: LeanConnection | null = null;
    try {
      opened = await LeanConnection.open(hostname, Number(port), () => opened && all.delete(opened));
      all.add(opened);
      return opened;
    } finally {
      opening -= 1;
    }
  };
  const release = (connection: LeanConnection) => {
    const waiter = waiting.shift();
    if (waiter) waiter.resolve(connection);
    else idle.push({ connection, since: performance.now() });
  };
  /** After a connection failed: a request waiting for one gets a new one. */
  const replace = () => {
    const waiter = waiting.shift();
    if (waiter) open().then(waiter.resolve, waiter.reject);
  };
  const connection = (): Promise<LeanConnection> => {
    let ready = idle.pop()?.connection;
    while (ready && !ready.open) ready = idle.pop()?.connection;
    if (ready) return Promise.resolve(ready);
    if (all.size + opening < maxSockets) return open();
    return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  };

  const fire = (dueAt: number) => {
    const measured = dueAt >= measureFrom;
    const bytes = encodeRequest(options.next(), host);
    const done = (async () => {
      let sentAt = performance.now();
      let through: LeanConnection | null = null;
      try {
        through = await connection();
        sentAt = performance.now();
        const status = await through.send(bytes);
        release(through);
        if (measured) {
          const answeredAt = performance.now();
          latencies.push(answeredAt - dueAt);
          answers.push(answeredAt - sentAt);
        }
        if (status < 200 || status >= 300) non2xx += 1;
      } catch (error) {
        errors += 1;
        if (through) replace();
        firstError ??= (error as Error).message;
      }
      if (measured) lags.push(sentAt - dueAt);
    })();
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
  };

  await new Promise<void>((resolve) => {
    const interval = 1000 / options.rate;
    let nextDue = started;
    const timer = setInterval(() => {
      const now = performance.now();
      // A request written as the server's keep-alive close arrives fails: free connections go first.
      while (idle.length > 0 && now - idle[0]!.since > STALE_AFTER_MS) idle.shift()!.connection.destroy();
      while (nextDue <= now && nextDue < end) {
        fire(nextDue);
        nextDue += interval;
      }
      if (nextDue >= end) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
  await Promise.all(inFlight);
  for (const connection of all) connection.destroy();
  return {
    sent: lags.length,
    completed: latencies.length,
    non2xx,
    errors,
    ...(firstError === undefined ? {} : { firstError }),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    // Not Math.max(...latencies): a long run has more samples than the call stack has room for arguments.
    max: latencies.reduce((most, latency) => Math.max(most, latency), 0),
    sendLagP99: percentile(lags, 99),
    answerP50: percentile(answers, 50),
    answerP99: percentile(answers, 99),
    steal: stealPercent(machineBefore, machineCpu()),
  };
}
