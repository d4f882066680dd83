import { Duplex } from 'node:stream';
import { seededRandom } from '../../contracts/common/seeded-random.js';
import { TransbankPos } from '../device/transbank/transbank-pos.js';
import { ZvtTerminal } from '../device/zvt/zvt-terminal.js';
import { Link } from '../protocol/link.js';
import { SerialZvtLine } from '../protocol/zvt/line.js';
import type { TranscriptDevice } from './transcript.js';
import type { ZvtTranscriptDevice } from './zvt-transcript.js';

// The terminal a transcript was recorded from, started afresh as its
// `device` says, on one end of an in-memory line (svc-terminal play
// --emulated): every transcript plays against a terminal in the state it
// expects, with nothing to install or start by hand.

/** Two connected ends of a byte line, in memory: what one writes, the other reads. */
export function memoryLine(): [Duplex, Duplex] {
  const ends: Duplex[] = [];
  const end = (other: () => Duplex) =>
    new Duplex({
      read() {},
      write(chunk: Buffer, _encoding, done) {
        other().push(chunk);
        done();
      },
      final(done) {
        other().push(null);
        done();
      },
    });
  ends.push(
    end(() => ends[1]!),
    end(() => ends[0]!),
  );
  return [ends[0]!, ends[1]!];
}

/** Starts the transcript's terminal on `device` (an end of a line); answers how to stop it. */
export function startEmulatedPeer(setup: TranscriptDevice | ZvtTranscriptDevice, device: Duplex): { stop(): void } {
  const clock = new Date(setup.clock);
  if (setup.dialect === 'zvt') {
    const line = new SerialZvtLine(device);
    new ZvtTerminal({
      terminalId: setup.serial,
      cardDelayMs: setup.cardDelayMs,
      random: seededRandom(setup.seed),
      clock: () => clock,
    }).attach(line);
    return { stop: () => line.close() };
  }
  const link = new Link(device);
  new TransbankPos({
    terminalId: setup.serial,
    commerceCode: setup.commerceCode,
    cardDelayMs: setup.cardDelayMs,
    turnaroundMs: setup.turnaroundMs,
    random: seededRandom(setup.seed),
    clock: () => clock,
  }).attach(link);
  return { stop: () => link.close() };
}
