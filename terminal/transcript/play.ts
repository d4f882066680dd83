import { ACK, encodeFrame, hex } from '../protocol/frame.js';
import { LineReader, type RawLine } from './line-reader.js';
import { bytesOf, frameOf, type Transcript, type TranscriptFrame } from './transcript.js';
import { LineError, ProtocolError } from '../errors.js';

// Plays a transcript as the cash register: each H→T frame is sent as it is
// written, and everything the POS sends back (its ACK, then each T→H frame)
// is compared byte for byte with the transcript; each frame the POS sends
// is ACKed. The first difference ends the play: what follows would be
// compared against a POS in another state.

export interface PlayOutcome {
  ok: boolean;
  /** Frames compared and found equal. */
  matched: number;
  /** The first difference: which frame, what was expected, what came. */
  difference?: { frame: number; payload: string; expected: string; got: string };
}

export interface PlayOptions {
  /** How long to wait for each answer (a sale takes the card delay). */
  frameTimeoutMs?: number;
  /** After the last frame, how long nothing more may come. */
  quietMs?: number;
  /** Each frame as it is sent or matched. */
  onFrame?: (frame: TranscriptFrame, index: number) => void;
}

export async function playTranscript(
  line: RawLine,
  transcript: Transcript,
  options: PlayOptions = {},
): Promise<PlayOutcome> {
  const reader = new LineReader(line);
  const timeout = options.frameTimeoutMs ?? 5000;
  let matched = 0;
  const differs = (index: number, payload: string, expected: Buffer, got: Buffer | null): PlayOutcome => ({
    ok: false,
    matched,
    difference: { frame: index, payload, expected: hex(expected), got: got && got.length > 0 ? hex(got) : 'nothing' },
  });
  try {
    for (const [index, frame] of transcript.frames.entries()) {
      const expected = bytesOf(frame);
      if (frame.direction === 'H→T') {
        reader.write(expected);
        const ack = await reader.bytes(1, timeout);
        if (!ack || ack[0] !== ACK)
          return differs(index, `the POS's ACK of ${frame.payload}`, Buffer.of(ACK), ack ?? reader.rest());
      } else {
        const got = await reader.bytes(expected.length, timeout);
        if (!got || !got.equals(expected)) return differs(index, frame.payload, expected, got ?? reader.rest());
        reader.write(Buffer.of(ACK));
      }
      matched += 1;
      options.onFrame?.(frame, index);
    }
    const extra = await reader.frame(options.quietMs ?? 300);
    if (extra)
      return differs(transcript.frames.length, '(nothing more: the transcript ends here)', Buffer.alloc(0), extra);
    return { ok: true, matched };
  } finally {
    reader.close();
  }
}

/**
 * Records what the POS answers to each request, as the cash register that
 * sent it: a request's answers are the frames that come before the line
 * falls quiet for `quietMs` (a POS answers at once when its card delay is 0).
 */
export async function recordTranscript(
  line: RawLine,
  requests: string[],
  options: { quietMs?: number; frameTimeoutMs?: number } = {},
): Promise<TranscriptFrame[]> {
  const reader = new LineReader(line);
  const frames: TranscriptFrame[] = [];
  try {
    for (const request of requests) {
      reader.write(encodeFrame(request));
      frames.push(frameOf('H→T', request));
      const ack = await reader.bytes(1, options.frameTimeoutMs ?? 5000);
      if (!ack || ack[0] !== ACK)
        throw new LineError('NO_ANSWER', `the POS did not ACK ${request}: ${ack ? hex(ack) : 'nothing came'}`);
      for (;;) {
        const frame = await reader.frame(options.quietMs ?? 400);
        if (!frame) break;
        if (frame.length === 1) throw new ProtocolError('FRAME_INVALID', `a stray byte ${hex(frame)} after ${request}`);
        frames.push(frameOf('T→H', frame.subarray(1, -2).toString('latin1')));
        reader.write(Buffer.of(ACK));
      }
    }
    return frames;
  } finally {
    reader.close();
  }
}
