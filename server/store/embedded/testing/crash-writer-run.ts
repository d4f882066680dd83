import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const writer = fileURLToPath(new URL('./crash-writer.ts', import.meta.url));

export interface WriterLife {
  /** Ids the writer printed as acknowledged before the kill (a line the kill cut is not one). */
  acknowledged: string[];
  /** What it wrote to stderr (its `opened {…}` line among it). */
  stderr: string;
}

/** Runs the crash writer on `dir` until `lifeMs` past ready, SIGKILLs it, and answers what it acknowledged. */
export function runWriterUntilKilled(
  dir: string,
  runId: string,
  lifeMs: number,
  env: Record<string, string> = {},
): Promise<WriterLife> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', writer, dir, runId], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let out = '';
    let err = '';
    let ready = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (!ready && out.includes('ready\n')) {
        ready = true;
        setTimeout(() => child.kill('SIGKILL'), lifeMs);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL') return reject(new Error(`writer exited by itself: ${err}`));
      const lines = out.split('\n').slice(0, -1);
      resolve({ acknowledged: lines.filter((line) => line !== 'ready'), stderr: err });
    });
  });
}
