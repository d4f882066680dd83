import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The compiled server (dist/server/main.js) in a process of its own, on a free port: its URL once it listens, and how long that took. */
export function startCompiledServer(
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<{ child: ChildProcess; url: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...nodeArgs, fileURLToPath(new URL('../../server/main.js', import.meta.url))],
      {
        env: { ...process.env, PORT: '0', LOG_LEVEL: 'error', ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve({ child, url: match[1]!, ms: performance.now() - started });
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

/** A compiled bench server (pos-server.js, minimal-route.js…) in a process of its own: its URL once it prints `port N`. */
export function startBenchScript(
  script: string,
  args: string[],
  nodeArgs: string[] = [],
): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const port = /port (\d+)/.exec(chunk)?.[1];
      if (port) resolve({ child, url: `http://127.0.0.1:${port}` });
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}
