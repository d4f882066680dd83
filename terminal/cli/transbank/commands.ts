import type { DialectCommands } from '../dialect-commands.js';
import { transbankBridgeCommand } from './bridge.js';
import { transbankEmulateCommand } from './emulate.js';

/** The transbank dialect's commands, all in this folder: what cli/dialects.ts lists. */
export const transbankCommands: DialectCommands = { bridge: transbankBridgeCommand, emulate: transbankEmulateCommand };
