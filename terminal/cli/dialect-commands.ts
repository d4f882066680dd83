import type { ParseArgsConfig } from 'node:util';
import type { SerialLine } from '../bridge/bridge-options.js';
import type { DialectDefinition } from '../bridge/dialect.js';
import type { CliIo } from './io.js';

// What a dialect gives the commands that take --dialect: its own options
// and their usage text, and how it turns the values parsed into what runs
// (an emulated device; a bridge's device and the line to it). The commands
// know only this port (dialects.ts lists the dialects), so a dialect is
// added without touching them.

export type OptionSpecs = NonNullable<ParseArgsConfig['options']>;
export type OptionValues = Record<string, string | boolean | undefined>;

/** The line a bridge opens and reopens to its device: a serial port, a TCP connection, an HTTPS endpoint. */
export interface BridgeLine {
  /** For the log: where the device is and how it is reached. */
  describe: string;
  open(): Promise<SerialLine>;
}

export interface ConfiguredBridge {
  definition: DialectDefinition;
  line: BridgeLine;
}

export interface BridgeSetup {
  io: CliIo;
  /** This terminal's directory under the bridge's state directory: where the dialect keeps its journal. */
  stateDir: string;
}

export interface DialectCommand {
  /** The dialect's own options, beside the command's common ones. */
  options: OptionSpecs;
  /** The dialect's part of the command's --help. */
  usage: string;
}

export interface BridgeCommand extends DialectCommand {
  /** A usage mistake throws a USAGE error; what is missing is said in one line. */
  configure(values: OptionValues, setup: BridgeSetup): Promise<ConfiguredBridge>;
}

export interface EmulateCommand extends DialectCommand {
  /** Runs the emulated device until io.stop. */
  run(values: OptionValues, io: CliIo): Promise<void>;
}

export interface DialectCommands {
  bridge: BridgeCommand;
  emulate: EmulateCommand;
}
