import { BridgeState } from '../bridge/bridge-state.js';
import { declinedCharge } from '../bridge/dialect-journal.js';
import { commandFailed, parseOptions, statePath, usageError, type CliIo } from './io.js';
import { DEFAULT_STATE_DIR, usage } from './usage.js';

const refuseUsage = (message: string, help?: string): never => {
  throw usageError(message, help);
};

/** svc-terminal held: what the bridge holds for an operator, and the operator's decisions. */
export async function held(argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseOptions(
    {
      args: argv,
      allowPositionals: true,
      options: {
        serial: { type: 'string' },
        'state-dir': { type: 'string' },
        state: { type: 'string' },
        reason: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    usage.held,
  );
  if (values.help) return void io.out(usage.held);
  if (!values.serial) refuseUsage('held needs --serial', usage.held);
  const state = await BridgeState.open(statePath(io, values) ?? DEFAULT_STATE_DIR, values.serial!);
  const [action, key, ...extra] = positionals as [string | undefined, string | undefined, ...string[]];
  if (extra.length > 0) refuseUsage(`unexpected arguments: ${extra.join(' ')}`, usage.held);
  if (action === undefined) {
    const held = await state.listHeld();
    const asks = await state.listHeldAsks();
    if (held.length === 0 && asks.length === 0)
      return void io.out(`no records held for ${values.serial} (${state.dir})\n`);
    for (const ask of asks) {
      io.out(`${ask.key}  held ${ask.heldAt}\n  the ${ask.kind} of order ${ask.orderId}\n  why: ${ask.reason}\n`);
      io.out(
        ask.decision
          ? `  decided: ${ask.decision.action}${ask.decision.reason ? ` (${ask.decision.reason})` : ''}, waiting for the bridge's next cycle\n`
          : `  decide: resend ${ask.key} (ask the device again) | discard ${ask.key} --reason "…" (do not)\n`,
      );
    }
    for (const record of held) {
      io.out(
        `${record.key}  held ${record.heldAt}\n  ${record.message}\n  why: ${record.reason}\n  server: ${record.server.status} ${record.server.code ?? ''} ${record.server.message ?? ''}\n`,
      );
      io.out(
        record.decision
          ? `  decided: ${record.decision.action}${record.decision.reason ? ` (${record.decision.reason})` : ''}, waiting for the bridge's next cycle\n`
          : `  decide: resend ${record.key} | discard ${record.key} --reason "…"\n`,
      );
    }
    return;
  }
  if ((action !== 'resend' && action !== 'discard') || !key) refuseUsage('say resend KEY or discard KEY', usage.held);
  if (action === 'discard' && !values.reason?.trim())
    refuseUsage('discard needs --reason: it is kept with the decision', usage.held);
  try {
    await state.decideAny(key!, {
      action: action as 'resend' | 'discard',
      ...(values.reason ? { reason: values.reason } : {}),
      decidedAt: new Date().toISOString(),
    });
  } catch (error) {
    throw commandFailed(`${(error as Error).message} (svc-terminal held --serial ${values.serial} lists them)`);
  }
  io.out(`${action} ${key}: the bridge carries it out at its next cycle\n`);
}

/** svc-terminal retry: a sale the POS declined, sent again at the cashier's word. */
export async function retry(argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseOptions(
    {
      args: argv,
      allowPositionals: true,
      options: {
        serial: { type: 'string' },
        'state-dir': { type: 'string' },
        state: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    usage.retry,
  );
  if (values.help) return void io.out(usage.retry);
  if (!values.serial || positionals.length !== 1) refuseUsage('retry needs one ORDER and --serial', usage.retry);
  const state = await BridgeState.open(statePath(io, values) ?? DEFAULT_STATE_DIR, values.serial!);
  const [orderId] = positionals as [string];
  if (!(await declinedCharge(state.dir, orderId)))
    refuseUsage(
      `order ${orderId} has no sale declined by the POS of ${values.serial} (${state.dir}); a PENDING order that was not declined is sold anyway`,
    );
  await state.requestRetry(orderId, new Date().toISOString());
  io.out(`retry ${orderId}: the bridge sends it to the POS again at its next cycle\n`);
}
