import { hex } from '../protocol/frame.js';
import { decodeApdu, encodeApdu, type Apdu } from '../protocol/zvt/apdu.js';
import { commandName } from '../protocol/zvt/messages.js';
import type { ZvtLine } from '../protocol/zvt/line.js';
import type { Direction } from './transcript.js';
import { ProtocolError } from '../errors.js';

// A ZVT transcript (fixtures/serial/zvt/): the APDUs a cash register and a
// terminal exchanged, in order, each named and in hex. The same APDUs cross
// a serial line (framed: DLE STX … DLE ETX CRC, ACKed) and a TCP connection
// (bare), so one transcript plays on either. A recorded one names the
// emulated terminal that answered it (`device`): started so, it answers the
// same bytes again.

export interface ZvtTranscriptDevice {
  dialect: 'zvt';
  serial: string;
  seed: number;
  clock: string;
  cardDelayMs: number;
}

export interface ZvtTranscript {
  protocol: 'zvt';
  description: string;
  device?: ZvtTranscriptDevice;
  apdus: Array<{ direction: Direction; name: string; hex: string }>;
}

export const apduEntry = (direction: Direction, message: Apdu) => ({
  direction,
  name: commandName(message),
  hex: hex(encodeApdu(message)),
});

export const isZvtTranscript = (value: unknown): value is ZvtTranscript =>
  (value as { protocol?: unknown })?.protocol === 'zvt';

/** Checks a parsed ZVT transcript: every entry a whole APDU in hex. */
export function checkZvtTranscript(file: string, value: ZvtTranscript): ZvtTranscript {
  if (typeof value.description !== 'string' || !Array.isArray(value.apdus))
    throw new ProtocolError('TRANSCRIPT_INVALID', `${file} is not a ZVT transcript: it needs a description and apdus`);
  value.apdus.forEach((entry, index) => {
    if (entry.direction !== 'H→T' && entry.direction !== 'T→H')
      throw new ProtocolError(
        'TRANSCRIPT_INVALID',
        `${file}: apdus/${index} has direction ${JSON.stringify(entry.direction)}, not H→T or T→H`,
      );
    try {
      decodeApdu(Buffer.from(String(entry.hex).replace(/ /g, ''), 'hex'));
    } catch (error) {
      throw new ProtocolError(
        'TRANSCRIPT_INVALID',
        `${file}: apdus/${index} is not an APDU: ${(error as Error).message}`,
        { cause: error },
      );
    }
  });
  return value;
}

export function zvtEmulateOptions(device: ZvtTranscriptDevice): string[] {
  return [
    '--dialect',
    'zvt',
    '--serial',
    device.serial,
    '--seed',
    String(device.seed),
    '--clock',
    device.clock,
    '--card-delay',
    `${device.cardDelayMs}ms`,
  ];
}

export interface ZvtPlayOutcome {
  ok: boolean;
  matched: number;
  difference?: { index: number; name: string; expected: string; got: string };
}

/**
 * Plays a ZVT transcript as the cash register on `line`: each H→T APDU is
 * sent as written, each T→H one must come as written, byte for byte. The
 * first difference ends the play.
 */
export async function playZvtTranscript(
  line: ZvtLine,
  transcript: ZvtTranscript,
  options: { timeoutMs?: number; quietMs?: number } = {},
): Promise<ZvtPlayOutcome> {
  const inbox: Apdu[] = [];
  let wake: (() => void) | null = null;
  const onApdu = (message: Apdu) => {
    inbox.push(message);
    wake?.();
  };
  line.on('apdu', onApdu);
  const next = async (timeoutMs: number): Promise<Apdu | null> => {
    if (inbox.length === 0 && !line.isClosed)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    wake = null;
    return inbox.shift() ?? null;
  };
  let matched = 0;
  try {
    for (const [index, entry] of transcript.apdus.entries()) {
      const bytes = Buffer.from(entry.hex.replace(/ /g, ''), 'hex');
      if (entry.direction === 'H→T') await line.send(decodeApdu(bytes));
      else {
        const got = await next(options.timeoutMs ?? 5000);
        const gotHex = got ? hex(encodeApdu(got)) : 'nothing';
        if (gotHex !== entry.hex)
          return { ok: false, matched, difference: { index, name: entry.name, expected: entry.hex, got: gotHex } };
      }
      matched += 1;
    }
    const extra = await next(options.quietMs ?? 300);
    if (extra)
      return {
        ok: false,
        matched,
        difference: {
          index: transcript.apdus.length,
          name: '(nothing more)',
          expected: 'nothing',
          got: hex(encodeApdu(extra)),
        },
      };
    return { ok: true, matched };
  } finally {
    line.off('apdu', onApdu);
  }
}
