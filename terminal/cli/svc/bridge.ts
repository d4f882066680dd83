import type { BridgeCommand } from '../dialect-commands.js';
import { serialLineOf } from '../lines.js';
import { svcDialect } from '../../bridge/svc/svc-dialect.js';

/** svc-terminal bridge (--dialect svc, the default): our own protocol on a serial line, 115200 8N1. */
export const svcBridgeCommand: BridgeCommand = {
  options: { path: { type: 'string' }, baud: { type: 'string' } },
  usage: '',
  configure: async (values) => ({ definition: svcDialect, line: serialLineOf(values, 115200, 1) }),
};
