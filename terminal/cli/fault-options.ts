import type { Faults } from '../device/faulty-port.js';
import { duration, integer, type CliIo } from './io.js';

/** The fault options every emulated device on a line takes (for tests and demos). */
export const FAULT_OPTIONS = {
  'corrupt-frame': { type: 'string' },
  'drop-ack': { type: 'string' },
  'split-gap-ms': { type: 'string' },
  'delay-ms': { type: 'string' },
  'split-gap': { type: 'string' },
  delay: { type: 'string' },
  'silent-after': { type: 'string' },
} as const;

/** The faults the options ask for. */
export function faultsOf(values: Record<string, unknown>, io: CliIo): Faults {
  const faults: Faults = {};
  const setFault = (key: keyof Faults, name: string) => {
    const value = integer(name, values[name] as string | undefined);
    if (value !== undefined) faults[key] = value;
  };
  setFault('corruptFrame', 'corrupt-frame');
  setFault('dropAck', 'drop-ack');
  const splitGap = duration(io, values, 'split-gap');
  if (splitGap !== undefined) faults.splitGapMs = splitGap;
  const delay = duration(io, values, 'delay');
  if (delay !== undefined) faults.delayMs = delay;
  setFault('silentAfter', 'silent-after');
  return faults;
}
