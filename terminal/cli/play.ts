import { connect } from 'node:net';
import { readFile } from 'node:fs/promises';
import type { Duplex } from 'node:stream';
import { SerialZvtLine, TcpZvtLine, type ZvtLine } from '../protocol/zvt/line.js';
import { openSerial } from '../serial-port.js';
import { playTranscript } from '../transcript/play.js';
import { emulateOptions, parseTranscript, type Transcript } from '../transcript/transcript.js';
import {
  checkZvtTranscript,
  isZvtTranscript,
  playZvtTranscript,
  zvtEmulateOptions,
  type ZvtTranscript,
} from '../transcript/zvt-transcript.js';
import { CommandError, integer, parseOptions, UsageError, type CliIo } from './io.js';
import { usage } from './usage.js';

type Loaded = { file: string; transcript: Transcript } | { file: string; zvt: ZvtTranscript };

/** svc-terminal play: each transcript played as the cash register, the terminal's answers checked byte for byte. */
export async function play(argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseOptions(
    {
      args: argv,
      allowPositionals: true,
      options: {
        path: { type: 'string' },
        host: { type: 'string' },
        baud: { type: 'string' },
        'timeout-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    usage.play,
  );
  if (values.help) return void io.out(usage.play);
  if (Boolean(values.path) === Boolean(values.host))
    throw new UsageError(
      'play needs --path (a serial line) or --host HOST:PORT (ZVT over TCP), one of them',
      usage.play,
    );
  if (positionals.length === 0) throw new UsageError('name at least one transcript file', usage.play);
  const loaded: Loaded[] = [];
  for (const file of positionals) loaded.push(await load(file));
  const zvt = loaded.filter((entry): entry is Extract<Loaded, { zvt: ZvtTranscript }> => 'zvt' in entry);
  if (zvt.length > 0 && zvt.length < loaded.length)
    throw new UsageError('play ZVT transcripts and Transbank transcripts in separate runs');
  if (values.host && zvt.length === 0)
    throw new UsageError('--host plays ZVT transcripts (over TCP); a Transbank POS is on a serial line: --path');
  const timeoutMs = integer('timeout-ms', values['timeout-ms'], 5000)!;
  const failed =
    zvt.length > 0
      ? await playZvt(zvt, values, timeoutMs, io)
      : await playTransbank(loaded as Array<Extract<Loaded, { transcript: Transcript }>>, values, timeoutMs, io);
  if (failed > 0) throw new CommandError(`${failed} of ${loaded.length} transcripts differ`);
}

async function load(file: string): Promise<Loaded> {
  const text = await readFile(file, 'utf8').catch((error: Error) => {
    throw new UsageError(`cannot read ${file}: ${error.message}`);
  });
  try {
    const value: unknown = JSON.parse(text);
    if (isZvtTranscript(value)) return { file, zvt: checkZvtTranscript(file, value) };
    return { file, transcript: parseTranscript(file, text) };
  } catch (error) {
    throw new UsageError(
      error instanceof SyntaxError ? `${file} is not JSON: ${error.message}` : (error as Error).message,
    );
  }
}

async function playTransbank(
  transcripts: Array<{ file: string; transcript: Transcript }>,
  values: { path?: string; baud?: string },
  timeoutMs: number,
  io: CliIo,
): Promise<number> {
  const port = await openSerial(values.path!, integer('baud', values.baud, 115200)!).catch((error: Error) => {
    throw new CommandError(`cannot open ${values.path}: ${error.message}`);
  });
  let failed = 0;
  try {
    for (const { file, transcript } of transcripts) {
      const device = transcript.device
        ? ` (the POS started as: svc-terminal emulate --path … ${emulateOptions(transcript.device).join(' ')})`
        : '';
      io.out(`${file}: ${transcript.description}${device}\n`);
      const outcome = await playTranscript(port, transcript, { frameTimeoutMs: timeoutMs });
      if (outcome.ok) io.out(`  ok: ${outcome.matched} frames, byte for byte\n`);
      else {
        failed += 1;
        const { frame, payload, expected, got } = outcome.difference!;
        io.out(
          `  DIFFERS at frame ${frame} (${payload}) after ${outcome.matched} matched\n    expected ${expected}\n    got      ${got}\n`,
        );
      }
    }
  } finally {
    await new Promise<void>((resolve) => port.close(() => resolve()));
  }
  return failed;
}

async function playZvt(
  transcripts: Array<{ file: string; zvt: ZvtTranscript }>,
  values: { path?: string; host?: string; baud?: string },
  timeoutMs: number,
  io: CliIo,
): Promise<number> {
  const stream = await openZvt(values);
  const line: ZvtLine = values.host ? new TcpZvtLine(stream) : new SerialZvtLine(stream);
  let failed = 0;
  try {
    for (const { file, zvt } of transcripts) {
      const how = values.host ? '--listen HOST:PORT' : '--path …';
      const device = zvt.device
        ? ` (the terminal started as: svc-terminal emulate ${how} ${zvtEmulateOptions(zvt.device).join(' ')})`
        : '';
      io.out(`${file}: ${zvt.description}${device}\n`);
      const outcome = await playZvtTranscript(line, zvt, { timeoutMs });
      if (outcome.ok) io.out(`  ok: ${outcome.matched} APDUs, byte for byte\n`);
      else {
        failed += 1;
        const { index, name, expected, got } = outcome.difference!;
        io.out(
          `  DIFFERS at APDU ${index} (${name}) after ${outcome.matched} matched\n    expected ${expected}\n    got      ${got}\n`,
        );
        break; // the terminal is now in another state than the next transcript expects
      }
    }
  } finally {
    line.close();
  }
  return failed;
}

async function openZvt(values: { path?: string; host?: string; baud?: string }): Promise<Duplex> {
  if (values.path)
    return openSerial(values.path, integer('baud', values.baud, 9600)!, 2).catch((error: Error) => {
      throw new CommandError(`cannot open ${values.path}: ${error.message}`);
    });
  const match = /^(.+):(\d{1,5})$/.exec(values.host!);
  if (!match) throw new UsageError(`--host takes HOST:PORT, got ${JSON.stringify(values.host)}`);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(match[2]), match[1]!.replace(/^\[|\]$/g, ''), () => resolve(socket));
    socket.once('error', (error) => reject(new CommandError(`cannot reach ${values.host}: ${error.message}`)));
  });
}
