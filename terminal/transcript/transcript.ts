import { encodeFrame, hex } from '../protocol/frame.js';
import { ProtocolError } from '../errors.js';

// A serial transcript (fixtures/serial/): the frames a cash register and a
// POS exchanged, in order, each as its payload and as the bytes on the line
// (STX payload ETX LRC, in hex); every frame is answered ACK (06) by the
// other side. A recorded one names the emulated POS that answered it
// (`device`): started so, the POS answers the same bytes again, which is
// what `svc-terminal play` checks.

export type Direction = 'H→T' | 'T→H';

export interface TranscriptFrame {
  /** H→T: the cash register (host) to the POS; T→H: the POS to the cash register. */
  direction: Direction;
  payload: string;
  hex: string;
}

/** How the emulated POS that answered was started (svc-terminal emulate's options). */
export interface TranscriptDevice {
  dialect: 'transbank';
  serial: string;
  commerceCode: string;
  seed: number;
  clock: string;
  cardDelayMs: number;
  turnaroundMs: number;
}

export interface Transcript {
  description: string;
  device?: TranscriptDevice;
  frames: TranscriptFrame[];
}

export const frameOf = (direction: Direction, payload: string): TranscriptFrame => ({
  direction,
  payload,
  hex: hex(encodeFrame(payload)),
});

/** The frames' bytes, from their hex. */
export const bytesOf = (frame: TranscriptFrame): Buffer => Buffer.from(frame.hex.replace(/ /g, ''), 'hex');

/** A transcript read from JSON, or what is wrong with it. */
export function parseTranscript(file: string, text: string): Transcript {
  let value: Transcript;
  try {
    value = JSON.parse(text) as Transcript;
  } catch (error) {
    throw new ProtocolError('TRANSCRIPT_INVALID', `${file} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  if (typeof value?.description !== 'string' || !Array.isArray(value.frames))
    throw new ProtocolError('TRANSCRIPT_INVALID', `${file} is not a transcript: it needs a description and frames`);
  value.frames.forEach((frame, index) => {
    if (frame.direction !== 'H→T' && frame.direction !== 'T→H')
      throw new ProtocolError(
        'TRANSCRIPT_INVALID',
        `${file}: frames/${index} has direction ${JSON.stringify(frame.direction)}, not H→T or T→H`,
      );
    if (typeof frame.hex !== 'string' || !/^[0-9a-f]{2}( [0-9a-f]{2})*$/.test(frame.hex))
      throw new ProtocolError('TRANSCRIPT_INVALID', `${file}: frames/${index} has no hex bytes`);
    if (hex(encodeFrame(frame.payload)) !== frame.hex)
      throw new ProtocolError(
        'TRANSCRIPT_INVALID',
        `${file}: frames/${index}'s hex is not its payload framed (STX payload ETX LRC)`,
      );
  });
  return value;
}

/** The svc-terminal emulate options that start the POS a transcript was recorded from. */
export function emulateOptions(device: TranscriptDevice): string[] {
  return [
    '--dialect',
    device.dialect,
    '--serial',
    device.serial,
    '--commerce-code',
    device.commerceCode,
    '--seed',
    String(device.seed),
    '--clock',
    device.clock,
    '--card-delay',
    `${device.cardDelayMs}ms`,
    '--turnaround',
    `${device.turnaroundMs}ms`,
  ];
}
