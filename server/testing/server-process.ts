import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../main.ts', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  /** What the process wrote to stderr so far (its JSON log lines). */
  stderr: () => string;
}

/**
 * Starts `server/main.ts` in its own process as `npm start` would, on a
 * random port. Rejects with its stderr if it exits first. `wrapper` runs it
 * under another command (e.g. `unshare -n`, in a network namespace of its own).
 */
export function startServerProcess(env: Record<string, string>, wrapper: string[] = []): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const [command, ...args] = [...wrapper, process.execPath, '--import', 'tsx', main];
    const child = spawn(command!, args, {
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve({ child, baseUrl: match[1]!, stderr: () => err });
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('exit', (code) =>
      reject(Object.assign(new Error(`server exited with ${code}: ${err}`), { code, stderr: err })),
    );
  });
}

/** Resolves once the process has exited (at once if it already has). */
export function stopped(child: ChildProcess): Promise<void> {
  return new Promise((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
  );
}

/** SIGTERM, then waits for the exit. */
export async function stopServerProcess(server: ServerProcess): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
  await stopped(server.child);
}
