import type { OperationHandlers } from '../http/operation.js';
import { publicTerminal, terminalSecret } from '../terminals/terminal.js';
import type { TerminalService } from '../terminals/terminal-service.js';

export function terminalHandlers(terminals: TerminalService): OperationHandlers {
  return {
    provisionTerminal: async ({ account, body }, ctx) => {
      const terminal = await terminals.provision(account, body);
      ctx.status = 201;
      ctx.body = terminalSecret(terminal);
    },
    listTerminals: async ({ account }, ctx) => {
      ctx.body = { data: (await terminals.list(account)).map(publicTerminal) };
    },
    rotateTerminalSecret: async ({ account, params }, ctx) => {
      const terminal = await terminals.rotateSecret(account, params.serialNumber);
      ctx.status = 201;
      ctx.body = terminalSecret(terminal);
    },
  };
}
