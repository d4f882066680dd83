import type { DialectCommands } from '../dialect-commands.js';
import { svcBridgeCommand } from './bridge.js';
import { svcEmulateCommand } from './emulate.js';

/** The svc dialect's commands, all in this folder: what cli/dialects.ts lists. */
export const svcCommands: DialectCommands = { bridge: svcBridgeCommand, emulate: svcEmulateCommand };
