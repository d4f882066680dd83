import { PassThrough } from 'node:stream';
import { main } from '../cli/main.js';
import type { CliIo } from '../cli/io.js';

/** svc-terminal run in this process on streams of the test's: what it printed, operator lines to type, a stop. */
export function startCli(argv: string[], env: NodeJS.ProcessEnv = process.env) {
  const stop = new AbortController();
  const input = new PassThrough();
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (text) => void (out += text),
    err: (text) => void (err += text),
    input,
    env,
    stop: stop.signal,
  };
  const exited = main(argv, io);
  return {
    exited,
    out: () => out,
    err: () => err,
    type: (line: string) => void input.write(`${line}\n`),
    /** As SIGTERM does: a long-running command stops; answers its exit code. */
    stop: () => (stop.abort(), exited),
  };
}

/** svc-terminal run to its end in this process. */
export async function runCli(
  argv: string[],
  env?: NodeJS.ProcessEnv,
): Promise<{ code: number; out: string; err: string }> {
  const run = startCli(argv, env);
  const code = await run.exited;
  return { code, out: run.out(), err: run.err() };
}
