#!/usr/bin/env node
// svc-terminal: drive real or emulated POS devices over a serial line. The
// commands live in cli/ (main.ts); this runs them on the process's streams.
import { onStopRequest } from '../contracts/cli/stop-signals.js';
import { main } from './cli/main.js';

// Output piped into a reader that stops early (svc-terminal held | head) ends the command quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

const stop = new AbortController();
onStopRequest(() => stop.abort());
process.exitCode = await main(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  input: process.stdin,
  env: process.env,
  stop: stop.signal,
});
// A long-running command has stopped (or a short one is done): what is left open (stdin) does not hold the exit.
process.exit();
