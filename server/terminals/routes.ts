import type { OperationHandlers } from '../http/bind-operations.js';
import { publicTerminal, terminalSecret } from './terminal.js';
import type { TerminalService } from './terminal-service.js';

export function terminalHandlers(terminals: TerminalService): OperationHandlers {
  return {
    provisionTerminal: async (ctx) => {
      const terminal = await terminals.provision(
        ctx.state.account!,
        ctx.state.body as { serialNumber: string; label?: string },
      );
      ctx.status = 201;
      ctx.body = terminalSecret(terminal);
    },
    listTerminals: async (ctx) => {
      ctx.body = { data: (await terminals.list(ctx.state.account!)).map(publicTerminal) };
    },
    rotateTerminalSecret: async (ctx) => {
      const terminal = await terminals.rotateSecret(ctx.state.account!, ctx.state.params!.serialNumber!);
      ctx.status = 201;
      ctx.body = terminalSecret(terminal);
    },
  };
}
