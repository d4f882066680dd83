import { readFile } from 'node:fs/promises';
import { openSerial } from '../serial-port.js';
import { playTranscript } from '../transcript/play.js';
import { emulateOptions, parseTranscript } from '../transcript/transcript.js';
import { CommandError, integer, parseOptions, UsageError, type CliIo } from './io.js';
import { usage } from './usage.js';

/** svc-terminal play: each transcript played as the cash register on PATH, the POS's answers checked byte for byte. */
export async function play(argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseOptions(
    {
      args: argv,
      allowPositionals: true,
      options: {
        path: { type: 'string' },
        baud: { type: 'string' },
        'timeout-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    usage.play,
  );
  if (values.help) return void io.out(usage.play);
  if (!values.path) throw new UsageError('play needs --path', usage.play);
  if (positionals.length === 0) throw new UsageError('name at least one transcript file', usage.play);
  const transcripts = [];
  for (const file of positionals) {
    const text = await readFile(file, 'utf8').catch((error: Error) => {
      throw new UsageError(`cannot read ${file}: ${error.message}`);
    });
    try {
      transcripts.push({ file, transcript: parseTranscript(file, text) });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  const port = await openSerial(values.path, integer('baud', values.baud, 115200)!).catch((error: Error) => {
    throw new CommandError(`cannot open ${values.path}: ${error.message}`);
  });
  let failed = 0;
  try {
    for (const { file, transcript } of transcripts) {
      const device = transcript.device
        ? ` (the POS started as: svc-terminal emulate --path … ${emulateOptions(transcript.device).join(' ')})`
        : '';
      io.out(`${file}: ${transcript.description}${device}\n`);
      const outcome = await playTranscript(port, transcript, {
        frameTimeoutMs: integer('timeout-ms', values['timeout-ms'], 5000)!,
      });
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
  if (failed > 0) throw new CommandError(`${failed} of ${transcripts.length} transcripts differ`);
}
