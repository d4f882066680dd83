import { Agent, request } from 'node:http';
import { percentile } from '../bench-stats.js';

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
  /** From each request's due time to its answer's end: queueing in the generator counts. */
  p50: number;
  p99: number;
  max: number;
  /** How late the generator sent: from due time to the request leaving. */
  sendLagP99: number;
  /** From the request leaving to its answer's end: what the server and the network took. */
  answerP50: number;
  answerP99: number;
}

/**
 * Open-loop load at a steady rate: requests leave evenly spaced (checked
 * every millisecond), whatever the answers do, and each latency runs from
 * the moment a request was due to its answer's end, so queueing counts.
 * (autocannon's overallRate enforces a per-second quota, which sends
 * bursts at full speed and idles the rest of each second.)
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
  const { hostname, port } = new URL(options.baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 256 });
  const latencies: number[] = [];
  const answers: number[] = [];
  const lags: number[] = [];
  let sent = 0;
  let non2xx = 0;
  let errors = 0;
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  const measureFrom = started + (options.warmupS ?? 2) * 1000;
  const end = measureFrom + options.durationS * 1000;

  const fire = (dueAt: number) => {
    const measured = dueAt >= measureFrom;
    const spec = options.next();
    const sentAt = performance.now();
    if (measured) {
      sent += 1;
      lags.push(sentAt - dueAt);
    }
    const done = new Promise<void>((resolve) => {
      const req = request({ agent, hostname, port, method: spec.method, path: spec.path, headers: spec.headers }, (res) => {
        res.resume();
        res.on('end', () => {
          if (measured) {
            const end = performance.now();
            latencies.push(end - dueAt);
            answers.push(end - sentAt);
          }
          if (res.statusCode! < 200 || res.statusCode! >= 300) non2xx += 1;
          resolve();
        });
      });
      req.on('error', () => {
        errors += 1;
        resolve();
      });
      req.end(spec.body);
    });
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
  };

  await new Promise<void>((resolve) => {
    const interval = 1000 / options.rate;
    let nextDue = started;
    const timer = setInterval(() => {
      const now = performance.now();
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
  agent.destroy();
  return {
    sent,
    completed: latencies.length,
    non2xx,
    errors,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: Math.max(...latencies),
    sendLagP99: percentile(lags, 99),
    answerP50: percentile(answers, 50),
    answerP99: percentile(answers, 99),
  };
}
