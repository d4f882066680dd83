// npm run bench:profile [-- --connections 16,64 --duration 8 --postgres]
// Where the server's CPU goes per signed settlement POST, beside the
// minimal durable route under the same load, in one run: each in a process
// of its own under `--cpu-prof`, loaded in turn by autocannon, then each
// profile divided into the parts of a request (bench/profile-parts.ts), in
// microseconds a request, with the difference the signed route adds.
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { postgresBin } from '../../server/store/postgres/pg-testing.js';
import { benchCluster } from './bench-cluster.js';
import { startBenchScript } from './compiled-server.js';
import { provisionWorld } from './pos-world.js';
import { cpuMs } from './process-cpu.js';
import { summarize, type CpuProfile, type ProfileSummary } from './profile-parts.js';
import { settlementRequests } from './settlement-requests.js';

const { values: args } = parseArgs({
  options: {
    connections: { type: 'string', default: '16,64' },
    duration: { type: 'string', default: '8' },
    postgres: { type: 'boolean', default: false },
    top: { type: 'string', default: '12' },
    help: { type: 'boolean', short: 'h' },
  },
});
const usage = `usage: npm run bench:profile -- [--connections 16,64] [--duration S] [--postgres] [--top N]

For each number of connections: the signed settlement route (the real app,
scripts/bench/pos-server.ts) and the minimal durable signed route
(scripts/bench/minimal-route.ts), each in its own process under
node --cpu-prof, loaded in turn by autocannon (2 s of warm-up, then S
seconds measured). Prints, per request of the measured window: CPU from
/proc, and the profile's busy time divided into parts (our store, our
middleware, Koa, the router, ajv, Node's HTTP, socket writes, garbage
collection…) for both routes, with what the signed route adds; then the
signed route's N costliest functions. On the embedded store in a temp dir;
with --postgres, on a throwaway PostgreSQL cluster instead (the reference
then does one INSERT a request). The profiler itself costs some CPU:
compare the columns, not these figures with bench:pos's.
`;
if (args.help) {
  process.stdout.write(usage);
  process.exit(0);
}
const connectionCounts = args.connections.split(',').map(Number);
const seconds = Number(args.duration);
const top = Number(args.top);
if (
  connectionCounts.some((n) => !(n >= 1)) ||
  !(seconds > 0 && seconds <= 240) ||
  !(top >= 0) ||
  (args.postgres && !postgresBin())
) {
  process.stderr.write(
    args.postgres && !postgresBin()
      ? "bench:profile: --postgres needs PostgreSQL's server binaries (Debian's postgresql package)\n"
      : `bench:profile: check the arguments\n\n${usage}`,
  );
  process.exit(2);
}

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const dirs: string[] = [];
const tempDir = async (name: string) => {
  const dir = await mkdtemp(join(tmpdir(), `bench-profile-${name}-`));
  dirs.push(dir);
  return dir;
};
const postgresUrl = args.postgres ? (await benchCluster([])).cluster.url : undefined;

interface Profiled {
  summary: ProfileSummary;
  requests: number;
  cpuUs: number | null;
}

/** Loads a server for the warm-up and the measured window, stops it, and reads its profile over that window. */
async function profileRun(
  title: string,
  server: Awaited<ReturnType<typeof startBenchScript>>,
  profileDir: string,
  options: (seconds: number) => autocannon.Options,
  connections: number,
): Promise<Profiled> {
  process.stderr.write(`${title}…\n`);
  await autocannon({ connections, duration: 2, ...options(2) });
  const pid = server.child.pid!;
  const before = cpuMs(pid);
  const started = performance.now();
  const result = await autocannon({ connections, duration: seconds, ...options(seconds) });
  const lengthMs = performance.now() - started;
  const after = cpuMs(pid);
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${title}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  const stopped = performance.now();
  const exited = once(server.child, 'exit');
  server.child.kill('SIGTERM');
  await exited;
  const [file] = (await readdir(profileDir)).filter((name) => name.endsWith('.cpuprofile'));
  const profile = JSON.parse(await readFile(join(profileDir, file!), 'utf8')) as CpuProfile;
  // The process stops just after the load: the window is the load's length, ending when the kill was sent.
  const beforeEndMs = Math.max(0, performance.now() - stopped - 1);
  const summary = summarize(profile, { lengthMs, beforeEndMs });
  const requests = result.requests.total;
  return {
    summary,
    requests,
    cpuUs: before === null || after === null ? null : ((after - before) * 1000) / requests,
  };
}

const us = (ms: number, requests: number) => (ms * 1000) / requests;
const fixed = (value: number) => value.toFixed(1);

function table(connections: number, signed: Profiled, minimal: Profiled): string {
  const names = [...new Set([...signed.summary.parts.keys(), ...minimal.summary.parts.keys()])];
  const rows = names
    .map((name) => {
      const a = us(signed.summary.parts.get(name) ?? 0, signed.requests);
      const b = us(minimal.summary.parts.get(name) ?? 0, minimal.requests);
      return { name, a, b, added: a - b };
    })
    .sort((x, y) => y.added - x.added);
  const cpu = (p: Profiled) => (p.cpuUs === null ? 'n/a' : p.cpuUs.toFixed(0));
  const ratio = signed.cpuUs !== null && minimal.cpuUs ? (signed.cpuUs / minimal.cpuUs).toFixed(2) : 'n/a';
  const functions = [...signed.summary.functions]
    .map(([name, ms]) => [name, us(ms, signed.requests)] as const)
    .sort((x, y) => y[1] - x[1])
    .slice(0, top);
  return `### ${connections} connections, ${seconds} s measured

| µs a request | signed settlement POST | minimal durable route | added |
|---|---|---|---|
| CPU (/proc, profiler on) | ${cpu(signed)} | ${cpu(minimal)} | ratio ${ratio} |
| busy in the profile | ${fixed(us(signed.summary.busyMs, signed.requests))} | ${fixed(us(minimal.summary.busyMs, minimal.requests))} | ${fixed(us(signed.summary.busyMs, signed.requests) - us(minimal.summary.busyMs, minimal.requests))} |
${rows.map((row) => `| ${row.name} | ${fixed(row.a)} | ${fixed(row.b)} | ${fixed(row.added)} |`).join('\n')}

Requests: ${signed.requests} signed, ${minimal.requests} to the reference.${
    functions.length > 0
      ? `\n\nThe signed route's costliest functions (self time, µs a request):\n\n| function | µs |\n|---|---|\n${functions.map(([name, value]) => `| \`${name}\` | ${fixed(value)} |`).join('\n')}`
      : ''
  }
`;
}

try {
  const sections: string[] = [];
  for (const connections of connectionCounts) {
    const signedProfiles = await tempDir('signed-prof');
    const minimalProfiles = await tempDir('minimal-prof');
    const signedServer = await startBenchScript(
      here('./pos-server.js'),
      [postgresUrl ?? (await tempDir('signed'))],
      ['--cpu-prof', `--cpu-prof-dir=${signedProfiles}`],
    );
    const serial = `BENCH-${connections}`;
    const { secret } = await provisionWorld(signedServer.url, serial);
    const minimalServer = await startBenchScript(
      here('./minimal-route.js'),
      [await tempDir('minimal'), secret, ...(postgresUrl ? ['--postgres', postgresUrl] : [])],
      ['--cpu-prof', `--cpu-prof-dir=${minimalProfiles}`],
    );
    const measure = (name: string, server: typeof signedServer, profiles: string) =>
      profileRun(
        `${connections} connections: ${name}`,
        server,
        profiles,
        (s) => ({ url: server.url, requests: settlementRequests(serial, secret, true, s) }),
        connections,
      );
    const signed = await measure('signed settlement POST', signedServer, signedProfiles);
    const minimal = await measure('minimal durable route', minimalServer, minimalProfiles);
    sections.push(table(connections, signed, minimal));
  }
  process.stdout.write(
    `## bench:profile (${args.postgres ? 'PostgreSQL' : 'embedded store'})\n\nEach part is the self time of the functions in it (bench/profile-parts.ts), sorted by what the signed route adds.\n\n${sections.join('\n')}`,
  );
} finally {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}
