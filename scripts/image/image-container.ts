import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { IMAGE, run } from './podman-host.js';

// A container of the image, run with buildah as docker run runs it (podman
// run is refused by this machine's cgroup layout; buildah run with chroot
// isolation runs the image's filesystem on the host's network).

/** The image's default command, as the image declares it (what docker run runs). */
async function defaultCommand(): Promise<string[]> {
  const { stdout } = await run('podman', ['image', 'inspect', '--format', '{{json .Config.Cmd}}', IMAGE]);
  return JSON.parse(stdout) as string[];
}

/** A container of the image with `dataDir` as its /data, its default command running; stopped as docker stop does. */
export async function container(dataDir: string, port: number) {
  const { stdout } = await run('buildah', ['from', '--quiet', IMAGE]);
  const name = stdout.trim();
  // buildah 1.28 mounts its own volume over a declared VOLUME: undeclared, the bind mount takes effect.
  await run('buildah', ['config', '--volume', '/data-', name]);
  const child: ChildProcess = spawn(
    'buildah',
    [
      'run',
      '--isolation',
      'chroot',
      '-e',
      `PORT=${port}`,
      '-v',
      `${dataDir}:/data`,
      name,
      '--',
      ...(await defaultCommand()),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries += 1) {
    if (
      await fetch(`${base}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (tries > 300 || child.exitCode !== null) throw new Error(`the container did not serve /health:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    name,
    base,
    output: () => output,
    exec: (...command: string[]) =>
      run('buildah', ['run', '--isolation', 'chroot', name, '--', ...command], { maxBuffer: 16 * 1024 * 1024 }),
    /** SIGTERM to the container's process (what docker stop sends); its exit code. */
    stop: async () => {
      const server = serverProcess(child.pid!);
      if (server === undefined) throw new Error('no server process in the container');
      process.kill(server, 'SIGTERM');
      const code = await exited;
      await run('buildah', ['rm', name]);
      return code;
    },
  };
}

/** The container's server: the node process under buildah's, found through /proc. */
function serverProcess(ancestor: number): number | undefined {
  const parentOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    const pid = Number(entry);
    let command: string;
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!command.includes('/app/dist/server/main.js') || command.startsWith('buildah')) continue;
    for (let up = pid, hops = 0; up > 1 && hops < 10; up = parentOf(up), hops += 1) if (up === ancestor) return pid;
  }
  return undefined;
}
