// One load generator of bench:scale, in its own process: reads its job as
// JSON on argv (the instances' URLs, its terminals with their secrets,
// write or read, connections, seconds), spreads its connections over the
// instances, and prints one JSON line: requests answered 2xx, and any
// other answers or errors.
import autocannon from 'autocannon';
import { setBatchPrefix, settlementRequests } from './settlement-requests.js';

interface Job {
  id: number;
  urls: string[];
  terminals: Array<{ serial: string; secret: string }>;
  kind: 'write' | 'read';
  /** The merchant and its API token, for the reads. */
  merchantId: string;
  token: string;
  connections: number;
  seconds: number;
}

const job = JSON.parse(process.argv[2] ?? '{}') as Job;
setBatchPrefix(`G${job.id}-${Date.now().toString(36)}-`);

/** The merchant's read of a terminal's latest settlement, with its API token. */
function readRequests(serial: string): autocannon.Request[] {
  const path = `/api/v1/merchants/${job.merchantId}/pos-terminals/${encodeURIComponent(serial)}/settlements?sort=-closedAt&size=1`;
  return [{ method: 'GET', path, headers: { authorization: `Bearer ${job.token}` } }];
}

// One autocannon a (instance, terminal) pair, the connections split evenly among them.
const pairs = job.urls.flatMap((url, i) =>
  job.terminals.filter((_, t) => t % job.urls.length === i % job.urls.length).map((terminal) => ({ url, terminal })),
);
// The job's connections in all, spread as evenly as they go (at least one a pair).
const connectionsOf = (i: number) =>
  Math.max(1, Math.floor(job.connections / pairs.length) + (i < job.connections % pairs.length ? 1 : 0));
// Made before the run, so the CPU measured is the run's own.
const requests = pairs.map(({ terminal }) =>
  job.kind === 'write'
    ? settlementRequests(terminal.serial, terminal.secret, true, job.seconds, Math.ceil(4000 / pairs.length))
    : readRequests(terminal.serial),
);
const before = process.cpuUsage();
const results = await Promise.all(
  pairs.map(({ url }, i) =>
    autocannon({ url, connections: connectionsOf(i), duration: job.seconds, requests: requests[i] }),
  ),
);
const ok = results.reduce((sum, r) => sum + r['2xx'], 0);
if (process.env.SCALE_DEBUG)
  process.stderr.write(
    `${JSON.stringify(results.map((r) => ({ codes: r.statusCodeStats, errors: r.errors, timeouts: r.timeouts, non2xx: r.non2xx })))}\n`,
  );
const other = results.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0);
const used = process.cpuUsage(before);
process.stdout.write(
  `${JSON.stringify({ ok, other, seconds: job.seconds, cpuMs: (used.user + used.system) / 1000 })}\n`,
);
process.exit(0);
