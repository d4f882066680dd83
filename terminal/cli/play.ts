import { connect } from 'node:net';
import { readFile } from 'node:fs/promises';
import type { Duplex } from 'node:stream';
import { SerialZvtLine, TcpZvtLine, type ZvtLine } from '../protocol/zvt/line.js';
import { openSerial } from '../serial-port.js';
import { memoryLine, startEmulatedPeer } from '../transcript/emulated-peer.js';
import { playTranscript, type PlayOutcome } from '../transcript/play.js';
import { emulateOptions, parseTranscript, type Transcript } from '../transcript/transcript.js';
import {
  checkZvtTranscript,
  isZvtTranscript,
  playZvtTranscript,
  zvtEmulateOptions,
  type ZvtPlayOutcome,
  type ZvtTranscript,
} from '../transcript/zvt-transcript.js';
import {
  checkNexoTranscript,
  emulatedNexo,
  isNexoTranscript,
  nexoEmulateOptions,
  playNexoTranscript,
  type NexoPlayOutcome,
  type NexoTranscript,
} from '../transcript/nexo-transcript.js';
import { NexoClient } from '../bridge/nexo/nexo-client.js';
import { commandFailed, duration, integer, unreachable, parseOptions, usageError, type CliIo } from './io.js';
import { hostAndPort } from './lines.js';
import { usage } from './usage.js';

type Loaded =
  | { file: string; transcript: Transcript }
  | { file: string; zvt: ZvtTranscript }
  | { file: string; nexo: NexoTranscript };

/** svc-terminal play: each transcript played as the cash register, the terminal's answers checked byte for byte. */
export async function play(argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseOptions(
    {
      args: argv,
      allowPositionals: true,
      options: {
        path: { type: 'string' },
        host: { type: 'string' },
        ca: { type: 'string' },
        emulated: { type: 'boolean' },
        baud: { type: 'string' },
        'timeout-ms': { type: 'string' },
        timeout: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    usage.play,
  );
  if (values.help) return void io.out(usage.play);
  if ([values.path, values.host, values.emulated].filter(Boolean).length !== 1)
    throw usageError(
      'play needs --path (a serial line), --host HOST:PORT (ZVT over TCP) or --emulated, one of them',
      usage.play,
    );
  if (positionals.length === 0) throw usageError('name at least one transcript file', usage.play);
  const loaded: Loaded[] = [];
  for (const file of positionals) loaded.push(await load(file));
  if (values.emulated) {
    const failed = await playEmulated(loaded, duration(io, values, 'timeout', 5000)!, io);
    if (failed > 0) throw commandFailed(`${failed} of ${loaded.length} transcripts differ`);
    return;
  }
  const nexo = loaded.filter((entry): entry is Extract<Loaded, { nexo: NexoTranscript }> => 'nexo' in entry);
  if (nexo.length > 0) {
    if (nexo.length < loaded.length) throw usageError('play nexo transcripts apart from the others');
    if (!values.host || !values.ca)
      throw usageError('nexo transcripts play over HTTPS: --host HOST[:PORT] --ca FILE (or --emulated)');
    const failed = await playNexo(nexo, values.host, values.ca, duration(io, values, 'timeout', 5000)!, io);
    if (failed > 0) throw commandFailed(`${failed} of ${loaded.length} transcripts differ`);
    return;
  }
  const zvt = loaded.filter((entry): entry is Extract<Loaded, { zvt: ZvtTranscript }> => 'zvt' in entry);
  if (zvt.length > 0 && zvt.length < loaded.length)
    throw usageError('play ZVT transcripts and Transbank transcripts in separate runs');
  if (values.host && zvt.length === 0)
    throw usageError('--host plays ZVT transcripts (over TCP); a Transbank POS is on a serial line: --path');
  const timeoutMs = duration(io, values, 'timeout', 5000)!;
  const failed =
    zvt.length > 0
      ? await playZvt(zvt, values, timeoutMs, io)
      : await playTransbank(loaded as Array<Extract<Loaded, { transcript: Transcript }>>, values, timeoutMs, io);
  if (failed > 0) throw commandFailed(`${failed} of ${loaded.length} transcripts differ`);
}

/** Each transcript against a terminal started afresh as its `device` says, on an in-memory line. */
async function playEmulated(loaded: Loaded[], timeoutMs: number, io: CliIo): Promise<number> {
  const missing = loaded.find(
    (entry) => !('nexo' in entry ? entry.nexo.device : 'zvt' in entry ? entry.zvt.device : entry.transcript.device),
  );
  if (missing) throw usageError(`${missing.file} names no device to start ("device"): play it with --path or --host`);
  let failed = 0;
  for (const entry of loaded) {
    if ('nexo' in entry) {
      io.out(
        `${entry.file}: ${entry.nexo.description}\n  (against a fresh emulated terminal: ${nexoEmulateOptions(entry.nexo.device!).join(' ')})\n`,
      );
      if (!sayBodies(io, await playNexoTranscript(entry.nexo, emulatedNexo(entry.nexo.device!)))) failed += 1;
      continue;
    }
    const [ours, theirs] = memoryLine();
    const peer = startEmulatedPeer('zvt' in entry ? entry.zvt.device! : entry.transcript.device!, theirs);
    try {
      if ('zvt' in entry) {
        io.out(
          `${entry.file}: ${entry.zvt.description}\n  (against a fresh emulated terminal: ${zvtEmulateOptions(entry.zvt.device!).join(' ')})\n`,
        );
        const line = new SerialZvtLine(ours);
        const outcome = await playZvtTranscript(line, entry.zvt, { timeoutMs });
        line.close();
        if (!sayApdus(io, outcome)) failed += 1;
      } else {
        io.out(
          `${entry.file}: ${entry.transcript.description}\n  (against a fresh emulated POS: ${emulateOptions(entry.transcript.device!).join(' ')})\n`,
        );
        const outcome = await playTranscript(ours, entry.transcript, { frameTimeoutMs: timeoutMs });
        if (!sayFrames(io, outcome)) failed += 1;
      }
    } finally {
      peer.stop();
      ours.destroy();
    }
  }
  return failed;
}

async function load(file: string): Promise<Loaded> {
  const text = await readFile(file, 'utf8').catch((error: Error) => {
    throw usageError(`cannot read ${file}: ${error.message}`);
  });
  try {
    const value: unknown = JSON.parse(text);
    if (isZvtTranscript(value)) return { file, zvt: checkZvtTranscript(file, value) };
    if (isNexoTranscript(value)) return { file, nexo: checkNexoTranscript(file, value) };
    return { file, transcript: parseTranscript(file, text) };
  } catch (error) {
    throw usageError(error instanceof SyntaxError ? `${file} is not JSON: ${error.message}` : (error as Error).message);
  }
}

async function playTransbank(
  transcripts: Array<{ file: string; transcript: Transcript }>,
  values: { path?: string; baud?: string },
  timeoutMs: number,
  io: CliIo,
): Promise<number> {
  const port = await openSerial(values.path!, integer('baud', values.baud, 115200)!).catch((error: Error) => {
    throw commandFailed(`cannot open ${values.path}: ${error.message}`);
  });
  let failed = 0;
  try {
    for (const { file, transcript } of transcripts) {
      const device = transcript.device
        ? ` (the POS started as: svc-terminal emulate --path … ${emulateOptions(transcript.device).join(' ')})`
        : '';
      io.out(`${file}: ${transcript.description}${device}\n`);
      const outcome = await playTranscript(port, transcript, { frameTimeoutMs: timeoutMs });
      if (!sayFrames(io, outcome)) failed += 1;
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
      if (!sayApdus(io, outcome)) {
        failed += 1;
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
      throw commandFailed(`cannot open ${values.path}: ${error.message}`);
    });
  const match = /^(.+):(\d{1,5})$/.exec(values.host!);
  if (!match) throw usageError(`--host takes HOST:PORT, got ${JSON.stringify(values.host)}`);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(match[2]), match[1]!.replace(/^\[|\]$/g, ''), () => resolve(socket));
    socket.once('error', (error) => reject(unreachable(`cannot reach ${values.host}: ${error.message}`)));
  });
}

/** A Transbank transcript's outcome, in the words of every play; answers whether it matched. */
function sayFrames(io: CliIo, outcome: PlayOutcome): boolean {
  if (outcome.ok) return (io.out(`  ok: ${outcome.matched} frames, byte for byte\n`), true);
  const { frame, payload, expected, got } = outcome.difference!;
  io.out(
    `  DIFFERS at frame ${frame} (${payload}) after ${outcome.matched} matched\n    expected ${expected}\n    got      ${got}\n`,
  );
  return false;
}

/** nexo transcripts over HTTPS, in plaintext (a test terminal takes it), each to a terminal started as it says. */
async function playNexo(
  transcripts: Array<{ file: string; nexo: NexoTranscript }>,
  host: string,
  caFile: string,
  timeoutMs: number,
  io: CliIo,
): Promise<number> {
  const address = hostAndPort(host, 'an Adyen terminal listens on 8443', 8443);
  const ca = await readFile(caFile, 'utf8').catch((error: Error) => {
    throw usageError(`cannot read --ca ${caFile}: ${error.message}`);
  });
  const client = new NexoClient({ ...address, ca });
  let failed = 0;
  try {
    for (const { file, nexo } of transcripts) {
      const device = nexo.device
        ? ` (the terminal started as: svc-terminal emulate --listen HOST ${nexoEmulateOptions(nexo.device).join(' ')} …)`
        : '';
      io.out(`${file}: ${nexo.description}${device}\n`);
      const send = async (body: string) => {
        const answer = await client.post(body, timeoutMs).catch((error: Error) => {
          throw unreachable(`cannot reach ${host}: ${error.message}`);
        });
        return answer.text;
      };
      if (!sayBodies(io, await playNexoTranscript(nexo, send))) {
        failed += 1;
        break;
      }
    }
  } finally {
    client.close();
  }
  return failed;
}

/** A nexo transcript's outcome; answers whether it matched. */
function sayBodies(io: CliIo, outcome: NexoPlayOutcome): boolean {
  if (outcome.ok) return (io.out(`  ok: ${outcome.matched} responses, field for field\n`), true);
  const { index, name, expected, got } = outcome.difference!;
  io.out(
    `  DIFFERS at exchange ${index} (${name}) after ${outcome.matched} matched\n    expected ${expected}\n    got      ${got}\n`,
  );
  return false;
}

/** A ZVT transcript's outcome; answers whether it matched. */
function sayApdus(io: CliIo, outcome: ZvtPlayOutcome): boolean {
  if (outcome.ok) return (io.out(`  ok: ${outcome.matched} APDUs, byte for byte\n`), true);
  const { index, name, expected, got } = outcome.difference!;
  io.out(
    `  DIFFERS at APDU ${index} (${name}) after ${outcome.matched} matched\n    expected ${expected}\n    got      ${got}\n`,
  );
  return false;
}
