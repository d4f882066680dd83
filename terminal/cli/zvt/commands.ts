import type { DialectCommands } from '../dialect-commands.js';
import { zvtBridgeCommand } from './bridge.js';
import { zvtEmulateCommand } from './emulate.js';

/** The zvt dialect's commands, all in this folder: what cli/dialects.ts lists. */
export const zvtCommands: DialectCommands = { bridge: zvtBridgeCommand, emulate: zvtEmulateCommand };
