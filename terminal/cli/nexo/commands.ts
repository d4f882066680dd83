import type { DialectCommands } from '../dialect-commands.js';
import { nexoBridgeCommand } from './bridge.js';
import { nexoEmulateCommand } from './emulate.js';

/** The nexo dialect's commands, all in this folder: what cli/dialects.ts lists. */
export const nexoCommands: DialectCommands = { bridge: nexoBridgeCommand, emulate: nexoEmulateCommand };
