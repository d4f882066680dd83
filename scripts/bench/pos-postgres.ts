import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { startThrowawayPostgres } from '../../server/store/postgres/pg-testing.js';
import { median } from './stats.js';
import { provisionWorld } from './pos-world.js';
import { postgresCpu, postgresCpuSince } from './process-cpu.js';
import { settlementRequests } from './settlement-requests.js';

// bench:pos's PostgreSQL part: the same signed route on a throwaway cluster
// beside the minimal durable INSERT route, then 1, 2 and 3 instances.

export interface Measured {
  rps: number;
  p50: number;
  p99: number;
  /** Server CPU per answered request, in microseconds. */
  cpuUs: number | null;
  /** The share of the machine's CPU time the hypervisor took meanwhile, in %. */
  steal: number | null;
}

/** What bench:pos lends its PostgreSQL part: how it starts and measures servers, and the run's settings. */
export interface PosBenchContext {
  start: (script: string, args: string[]) => Promise<{ child: ChildProcess; url: string }>;
  run: (
    title: string,
    pid: number,
    options: (seconds: number) => autocannon.Options,
    seconds?: number,
  ) => Promise<Measured>;
  children: ChildProcess[];
  cleanups: Array<() => void>;
  duration: number;
  connections: number;
  rounds: number;
  pacedRounds: number;
}

/**
 * The server on PostgreSQL (a throwaway cluster, fsync on): signed
 * settlement POSTs on one instance beside the reference on the same
 * database (the minimal durable route keeping each settlement with one
 * INSERT), in interleaved rounds; then 1, 2 and 3 instances on the one
 * database, the generator's connections split between them, for a write
 * (signed settlement POSTs) and a read (a terminal's latest settlement).
 * Answers the tables, beside the embedded figures of the rounds above.
 */
export async function postgresRuns(
  context: PosBenchContext,
  lowdbRps: number,
  minimalRps: number,
  minimalSecret: string,
): Promise<string> {
  const { start, run, children, cleanups, duration, connections } = context;
  const cluster = startThrowawayPostgres();
  cleanups.push(cluster.stop);
  const instances: Array<{ child: ChildProcess; url: string }> = [];
  const addInstance = async () => {
    const instance = await start('./bench/pos-server.js', [cluster.url]);
    children.push(instance.child);
    instances.push(instance);
    return instance;
  };
  // The other instances start after the one-instance rounds: their background work (webhook and accreditation passes) would load the database the reference does not share.
  const first = await addInstance();
  const world = await provisionWorld(first.url, 'BENCH-PG');
  const writesOn =
    (url: string, share = connections) =>
    (seconds: number) => ({
      url,
      connections: share,
      requests: settlementRequests('BENCH-PG', world.secret, true, seconds),
    });
  const readsOn =
    (url: string, share = connections) =>
    () => ({
      url: `${url}/api/v1/merchants/${world.merchantId}/pos-terminals/BENCH-PG/settlements?sort=-closedAt&size=1`,
      connections: share,
      headers: { authorization: `Bearer ${world.token}` },
    });
  const minimalDir = await mkdtemp(join(tmpdir(), 'bench-pos-minimal-pg-'));
  cleanups.push(() => void rm(minimalDir, { recursive: true, force: true }));
  const minimalPg = await start('./bench/minimal-route.js', [minimalDir, minimalSecret, '--postgres', cluster.url]);
  children.push(minimalPg.child);
  const minimalOn = (seconds: number) => ({
    url: minimalPg.url,
    requests: settlementRequests('BENCH-1', minimalSecret, true, seconds),
  });
  await run('warm-up: signed settlement POST on PostgreSQL', first.child.pid!, writesOn(first.url), 3);
  await run('warm-up: minimal durable signed route on PostgreSQL (reference)', minimalPg.child.pid!, minimalOn, 3);

  // One instance against the reference, interleaved: the server's CPU and PostgreSQL's per answered request beside each.
  const pgRounds: Array<{ signed: Measured; signedPgUs: number; reference: Measured; referencePgUs: number }> = [];
  for (let round = 1; round <= context.rounds; round += 1) {
    let before = postgresCpu();
    const signed = await run(
      `round ${round}: signed settlement POST on PostgreSQL, one instance`,
      first.child.pid!,
      writesOn(first.url),
    );
    const signedPgUs = (postgresCpuSince(before) * 1000) / (signed.rps * duration);
    before = postgresCpu();
    const reference = await run(
      `round ${round}: minimal durable signed route on PostgreSQL (reference)`,
      minimalPg.child.pid!,
      minimalOn,
    );
    const referencePgUs = (postgresCpuSince(before) * 1000) / (reference.rps * duration);
    pgRounds.push({ signed, signedPgUs, reference, referencePgUs });
  }
  minimalPg.child.kill('SIGTERM');
  for (const instance of [await addInstance(), await addInstance()])
    await run('warm-up: signed settlement POST on PostgreSQL', instance.child.pid!, writesOn(instance.url), 3);

  // 1, 2 and 3 instances, interleaved rounds; the load's connections split evenly.
  type Scaled = { rps: number; p99: number; each: number[] };
  const together = async (
    title: string,
    count: number,
    options: (url: string, share: number) => (seconds: number) => autocannon.Options,
  ): Promise<Scaled> => {
    const shares = instances
      .slice(0, count)
      .map((_, i) => Math.floor(connections / count) + (i < connections % count ? 1 : 0));
    const runs = await Promise.all(
      instances
        .slice(0, count)
        .map((instance, i) =>
          run(`${title}, instance ${i + 1} of ${count}`, instance.child.pid!, options(instance.url, shares[i]!)),
        ),
    );
    return {
      rps: runs.reduce((sum, each) => sum + each.rps, 0),
      p99: Math.max(...runs.map((each) => each.p99)),
      each: runs.map((each) => each.rps),
    };
  };
  const scaling: Array<Record<1 | 2 | 3, { write: Scaled; read: Scaled }>> = [];
  for (let round = 1; round <= context.pacedRounds; round += 1) {
    const measured = {} as Record<1 | 2 | 3, { write: Scaled; read: Scaled }>;
    for (const count of [1, 2, 3] as const) {
      const write = await together(`round ${round}: signed settlement POST on PostgreSQL`, count, writesOn);
      const read = await together(`round ${round}: latest settlement on PostgreSQL`, count, readsOn);
      measured[count] = { write, read };
    }
    scaling.push(measured);
  }

  const signedRps = median(pgRounds.map((r) => r.signed.rps));
  const vsReference = median(pgRounds.map((r) => r.signed.rps / r.reference.rps));
  const roundRows = pgRounds.flatMap((r, i) => [
    `| ${i + 1} | signed settlement POST, one instance | ${r.signed.rps.toFixed(0)} | ${r.signed.p99} | ${r.signed.cpuUs?.toFixed(0) ?? 'n/a'} | ${r.signedPgUs.toFixed(0)} |`,
    `| ${i + 1} | minimal durable signed route (reference) | ${r.reference.rps.toFixed(0)} | ${r.reference.p99} | ${r.reference.cpuUs?.toFixed(0) ?? 'n/a'} | ${r.referencePgUs.toFixed(0)} |`,
  ]);
  const scaleRow = (count: 1 | 2 | 3) => {
    const write = median(scaling.map((r) => r[count].write.rps));
    const read = median(scaling.map((r) => r[count].read.rps));
    return `| ${count} | ${write.toFixed(0)} | ${median(scaling.map((r) => r[count].write.p99))} | ${(write / median(scaling.map((r) => r[1].write.rps))).toFixed(2)} | ${read.toFixed(0)} | ${median(scaling.map((r) => r[count].read.p99))} | ${(read / median(scaling.map((r) => r[1].read.rps))).toFixed(2)} |`;
  };
  return `${connections} connections, ${duration} s a run, ${pgRounds.length} interleaved rounds; CPU per answered request: the server process's, and PostgreSQL's processes' together.

| round | run | req/s | p99 ms | server CPU µs/req | PostgreSQL CPU µs/req |
|---|---|---|---|---|---|
${roundRows.join('\n')}

signed settlement POST on PostgreSQL / the minimal durable route on PostgreSQL (median of rounds): ${(vsReference * 100).toFixed(1)} % (goal >= 60 %)
signed settlement POST on PostgreSQL / on the embedded store (medians): ${((signedRps / lowdbRps) * 100).toFixed(0)} %; the reference on PostgreSQL / the same route on the embedded journal: ${((median(pgRounds.map((r) => r.reference.rps)) / minimalRps) * 100).toFixed(0)} %

Instances on one database, ${connections} connections split evenly between them, ${duration} s a run, medians of ${scaling.length} interleaved rounds (p99: the slowest instance's):

| instances | write req/s (signed settlement POST) | write p99 ms | write × one | read req/s (latest settlement) | read p99 ms | read × one |
|---|---|---|---|---|---|---|
${([1, 2, 3] as const).map(scaleRow).join('\n')}

This machine has ${availableParallelism()} CPUs, shared by PostgreSQL, every instance and the load generator.`;
}
