import { isDeepStrictEqual } from 'node:util';
import { frame, readEnvelope } from '../protocol/nexo/messages.js';
import { NexoTerminal } from '../device/nexo/nexo-terminal.js';
import { seededRandom } from '../../contracts/common/seeded-random.js';
import { ProtocolError } from '../errors.js';

// A nexo transcript (fixtures/nexo/transcripts/): the plaintext requests a cash
// register sent and the responses an Adyen terminal gave, in order, each
// the whole JSON body as it crossed the wire (an Abort's answer is empty:
// null). A recorded one names the emulated terminal that answered it
// (`device`): started so, with the same seed and clock, it answers the same
// bodies again, field for field.

export interface NexoTranscriptDevice {
  dialect: 'nexo';
  poiid: string;
  seed: number;
  clock: string;
}

export interface NexoExchange {
  name: string;
  request: unknown;
  response: unknown;
}

export interface NexoTranscript {
  protocol: 'nexo';
  description: string;
  device?: NexoTranscriptDevice;
  exchanges: NexoExchange[];
}

export const isNexoTranscript = (value: unknown): value is NexoTranscript =>
  (value as { protocol?: unknown })?.protocol === 'nexo';

/** Checks a parsed nexo transcript: every request a SaleToPOIRequest, every response a SaleToPOIResponse or null. */
export function checkNexoTranscript(file: string, value: NexoTranscript): NexoTranscript {
  if (typeof value.description !== 'string' || !Array.isArray(value.exchanges))
    throw new ProtocolError(
      'TRANSCRIPT_INVALID',
      `${file} is not a nexo transcript: it needs a description and exchanges`,
    );
  value.exchanges.forEach((exchange, index) => {
    if (readEnvelope(JSON.stringify(exchange.request), 'SaleToPOIRequest').kind === 'broken')
      throw new ProtocolError('TRANSCRIPT_INVALID', `${file}: exchanges/${index} has no whole SaleToPOIRequest`);
    if (
      exchange.response !== null &&
      readEnvelope(JSON.stringify(exchange.response), 'SaleToPOIResponse').kind === 'broken'
    )
      throw new ProtocolError(
        'TRANSCRIPT_INVALID',
        `${file}: exchanges/${index} has a response that is not a SaleToPOIResponse`,
      );
  });
  return value;
}

export function nexoEmulateOptions(device: NexoTranscriptDevice): string[] {
  return [
    '--dialect',
    'nexo',
    '--poiid',
    device.poiid,
    '--seed',
    String(device.seed),
    '--clock',
    device.clock,
    '--card-delay',
    '0ms',
  ];
}

/** The emulated terminal a transcript names, in this process: it answers one request body with one response body. */
export function emulatedNexo(device: NexoTranscriptDevice): (request: string) => Promise<string> {
  const clock = new Date(device.clock);
  const terminal = new NexoTerminal({
    poiid: device.poiid,
    cardDelayMs: 0,
    random: seededRandom(device.seed),
    clock: () => clock,
  });
  return async (request) => {
    const incoming = readEnvelope(request, 'SaleToPOIRequest');
    if (incoming.kind !== 'plain')
      throw new ProtocolError('TRANSCRIPT_INVALID', 'a transcript request that is not a plaintext SaleToPOIRequest');
    const answer = await terminal.handle(incoming.message);
    return answer === null ? '' : frame('SaleToPOIResponse', answer);
  };
}

export interface NexoPlayOutcome {
  ok: boolean;
  matched: number;
  difference?: { index: number; name: string; expected: string; got: string };
}

/** Plays the requests in order through `send`, and checks each response body, field for field. */
export async function playNexoTranscript(
  transcript: NexoTranscript,
  send: (request: string) => Promise<string>,
): Promise<NexoPlayOutcome> {
  let matched = 0;
  for (const [index, exchange] of transcript.exchanges.entries()) {
    const text = await send(JSON.stringify(exchange.request));
    const got: unknown = text.trim() === '' ? null : JSON.parse(text);
    if (!isDeepStrictEqual(got, exchange.response))
      return {
        ok: false,
        matched,
        difference: {
          index,
          name: exchange.name,
          expected: JSON.stringify(exchange.response),
          got: JSON.stringify(got),
        },
      };
    matched += 1;
  }
  return { ok: true, matched };
}
