// npm run bench:store [-- --sizes 10000,1000000 --writes 20000 --concurrency 32]
// Per-write latency and throughput of the embedded store at several sizes, a
// bare write+fdatasync baseline, cold start time and memory, in one run.
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EmbeddedStore } from '../../server/store/embedded/embedded-store.js';
import { percentile } from './stats.js';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,1000000' },
    writes: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '32' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help) {
  process.stdout.write(`usage: npm run bench:store -- [--sizes N,N] [--writes N] [--concurrency N]
Seeds a fresh store to each size, then measures single-record writes
(p50/p99 latency, writes/s), the same while a snapshot runs, and cold start.
`);
  process.exit(0);
}
const sizes = args.sizes!.split(',').map(Number);
const writes = Number(args.writes);
const concurrency = Number(args.concurrency);

const record = (i: number) => ({
  id: `r${i}`,
  merchantId: `m${i % 97}`,
  amount: i,
  currency: 'USD',
  status: 'PENDING',
  createdAt: new Date(1_700_000_000_000 + i).toISOString(),
});

async function measureWrites(
  store: EmbeddedStore,
  from: number,
): Promise<{ p50: number; p99: number; perSecond: number }> {
  const latencies: number[] = [];
  let next = from;
  const end = from + writes;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < end) {
        const i = next++;
        const t0 = performance.now();
        await store.transact((tx) => tx.put('bench', `r${i}`, record(i)));
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), perSecond: writes / seconds };
}

async function bareFdatasync(dir: string): Promise<{ p50: number; p99: number; perSecond: number }> {
  const handle = await open(join(dir, 'bare.log'), 'a');
  const latencies: number[] = [];
  const line = `${JSON.stringify(record(1))}\n`;
  const started = performance.now();
  const n = 2000;
  for (let i = 0; i < n; i += 1) {
    const t0 = performance.now();
    await handle.write(line);
    await handle.datasync();
    latencies.push(performance.now() - t0);
  }
  await handle.close();
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    perSecond: n / ((performance.now() - started) / 1000),
  };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const ms = (value: number) => value.toFixed(2);
const rows: string[] = [];
const root = await mkdtemp(join(tmpdir(), 'bench-store-'));
try {
  const bare = await bareFdatasync(root);
  process.stderr.write(
    `baseline: one write+fdatasync at a time: p50 ${ms(bare.p50)} ms, ${bare.perSecond.toFixed(0)}/s\n`,
  );
  const results: Record<number, { steady: Awaited<ReturnType<typeof measureWrites>> }> = {};
  for (const size of sizes) {
    const dir = join(root, `s${size}`);
    const seeding = await EmbeddedStore.open({ dir });
    const seedStart = performance.now();
    for (let i = 0; i < size; i += 10_000) {
      await seeding.transact((tx) => {
        for (let j = i; j < Math.min(size, i + 10_000); j += 1) tx.put('bench', `r${j}`, record(j));
      });
    }
    await seeding.snapshot();
    await seeding.close();
    process.stderr.write(`seeded ${size} in ${((performance.now() - seedStart) / 1000).toFixed(1)} s\n`);

    // Measured on a store opened fresh, as a server starting on this data would.
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const coldStart = performance.now();
    const store = await EmbeddedStore.open({ dir });
    const coldMs = performance.now() - coldStart;
    global.gc?.();
    const heap = process.memoryUsage().heapUsed - heapBefore;
    const records = store.openStats.records;

    const steady = await measureWrites(store, size);
    const snapshotRun = store.snapshot();
    const during = await measureWrites(store, size + writes);
    await snapshotRun;
    results[size] = { steady };
    await store.close();
    rows.push(
      `| ${size.toLocaleString('en')} | ${ms(steady.p50)} | ${ms(steady.p99)} | ${steady.perSecond.toFixed(0)} | ${ms(during.p99)} | ${during.perSecond.toFixed(0)} | ${(coldMs / 1000).toFixed(2)} s (${records.toLocaleString('en')} records) | ${mb(heap)} heap for the records, ${mb(process.memoryUsage().rss)} rss |`,
    );
    process.stderr.write(`${rows.at(-1)}\n`);
  }
  const [small, large] = sizes;
  process.stdout.write(`
Baseline (same run): one 150-byte write + fdatasync at a time: p50 ${ms(bare.p50)} ms, p99 ${ms(bare.p99)} ms, ${bare.perSecond.toFixed(0)} writes/s.
Writes: ${writes} single-record transactions, ${concurrency} concurrent writers.

| records | p50 ms | p99 ms | writes/s | p99 ms during a snapshot | writes/s during a snapshot | cold start | memory after load |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}
`);
  if (small !== undefined && large !== undefined) {
    const ratio = results[large]!.steady.p99 / results[small]!.steady.p99;
    const speedup = results[small]!.steady.perSecond / bare.perSecond;
    process.stdout.write(
      `\np99 at ${large} / p99 at ${small}: ${ratio.toFixed(2)} (target <= 1.5)\nGroup commit vs bare fdatasync: ${speedup.toFixed(1)}x the writes/s\n`,
    );
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
