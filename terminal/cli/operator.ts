import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { createInterface } from 'node:readline';
import { usageError, type CliIo } from './io.js';

// Where a running emulator or bridge takes its operator's commands: its
// stdin when it is in the foreground, and a control socket (--control
// PATH) that `svc-terminal control PATH COMMAND` writes to, so a process
// started in the background (`… &`, a service) never needs the terminal.
// A background process that read a terminal would be stopped by it
// ("Stopped (tty input)") and would ignore kill until continued.

/** The answer to one command line, as the operator reads it. */
export type OperatorCommand = (line: string) => string | Promise<string>;

export interface OperatorChannel {
  /** Where commands come from, for the start-up line. */
  describe: string;
  close(): Promise<void>;
}

/**
 * Whether this process sits in the background of the terminal its stdin is:
 * its process group is not the terminal's foreground group (Linux's
 * /proc/self/stat: fields 5 and 8). Elsewhere, false: stdin is read.
 */
export function inBackground(stdin: NodeJS.ReadableStream): boolean {
  if (!(stdin as { isTTY?: boolean }).isTTY) return false;
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    const processGroup = Number(fields[2]);
    const foreground = Number(fields[5]);
    return foreground > 0 && processGroup !== foreground;
  } catch {
    return false;
  }
}

export async function operatorChannel(io: CliIo, command: OperatorCommand, control?: string): Promise<OperatorChannel> {
  const answer = async (line: string) => {
    try {
      return await command(line.trim());
    } catch (error) {
      return `error: ${(error as Error).message}`;
    }
  };
  const readsStdin = !inBackground(io.input);
  const reader = readsStdin
    ? createInterface({ input: io.input }).on('line', (line) => {
        if (line.trim()) void answer(line).then((text) => io.out(`${text}\n`));
      })
    : undefined;
  let server: Server | undefined;
  if (control) {
    // A Unix socket's path holds 107 bytes on Linux, 103 on macOS.
    if (Buffer.byteLength(control) > 100)
      throw usageError(`--control ${control} is too long for a socket path (100 bytes at most): name a shorter one`);
    rmSync(control, { force: true });
    server = createServer((socket) => {
      socket.setEncoding('utf8');
      let text = '';
      socket.on('data', (chunk: string) => {
        text += chunk;
        const end = text.indexOf('\n');
        if (end === -1) return;
        void answer(text.slice(0, end)).then((reply) => socket.end(`${reply}\n`));
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', (error) => reject(usageError(`--control ${control}: ${error.message}`)));
      server!.listen(control, () => resolve());
    });
  }
  const sources = [readsStdin ? 'stdin' : '', control ? `svc-terminal control ${control}` : ''].filter(Boolean);
  return {
    describe: sources.length > 0 ? sources.join(' or ') : 'none (started in the background without --control)',
    close: async () => {
      reader?.close();
      if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
      if (control) rmSync(control, { force: true });
    },
  };
}
