import type { Middleware } from 'koa';
import { posSignatureBytes } from '../../contracts/pos-signature.js';
import { bytesEqualHex } from '../accounts/secrets.js';
import type { Account } from '../accounts/account.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { AppState } from '../http/context.js';
import type { Store } from '../store/store.js';
import type { ReplayGuard, ReplayVerdict } from './replay-guard.js';
import type { TerminalRecord } from './terminal.js';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const HEX_SIGNATURE = /^[0-9a-f]{64}$/;

const invalid = (message: string) => new AppError('SIGNATURE_INVALID', message);

/**
 * Checks the POS signature of addendum §2 on requests under
 * /api/v1/pos-terminals/{serialNumber}/**, in this order: headers present
 * and well formed, terminal known, signature right (constant time), timestamp
 * within the tolerance of the server clock, signature not already accepted.
 * An unknown terminal answers like a wrong signature, so serials cannot be
 * probed. Puts the terminal and its account on the state.
 */
export function posSignatureGuard(store: Store, clock: Clock, toleranceSeconds: number, replays: ReplayGuard): Middleware<AppState> {
  const windowMs = toleranceSeconds * 1000;
  // Terminals as last read, where the replay check reads them again anyway (a shared store):
  // the signature is checked against the secret known here, then against the one read with the claim.
  const known = replays.checkAndRead ? new KnownTerminals(KNOWN_TERMINALS) : null;
  return async (ctx, next) => {
    const timestamp = ctx.get('x-pos-timestamp');
    const signature = ctx.get('x-pos-signature');
    if (!timestamp || !signature) throw invalid('send x-pos-timestamp and x-pos-signature');
    const signedAt = Date.parse(timestamp);
    if (!ISO_TIME.test(timestamp) || Number.isNaN(signedAt)) throw invalid('x-pos-timestamp must be an ISO 8601 time');
    if (!HEX_SIGNATURE.test(signature)) throw invalid('x-pos-signature must be 64 lowercase hex characters');

    const serial = ctx.params.serialNumber!; // every guarded route has it, decoded by the router
    const signs = (terminal: TerminalRecord | undefined) => {
      // Compute even for an unknown terminal, so both take as long.
      // Stryker disable next-line StringLiteral: the stand-in key only spends the time; an unknown terminal is refused whatever it is
      const expected = posSignatureBytes(terminal?.secret ?? '0'.repeat(64), timestamp, ctx.originalUrl, ctx.state.rawBody!); // read-body sets it on every request, empty without a body
      return bytesEqualHex(expected, signature) && terminal !== undefined;
    };
    let terminal = known?.get(serial);
    let account: Account | undefined;
    if (!terminal || !signs(terminal)) {
      // Not known here, or its secret may have been rotated since: as the store has it now, with its account.
      [terminal, account] = await store.getLinked<TerminalRecord, Account>('terminals', serial, 'account_id', 'accounts');
      if (!signs(terminal)) {
        known?.forget(serial);
        throw invalid('the signature does not match');
      }
    }

    const now = clock.now();
    if (Math.abs(now - signedAt) > windowMs) {
      throw new AppError('SIGNATURE_STALE', `x-pos-timestamp is more than ${toleranceSeconds} s from the server clock`);
    }
    const key = `${serial}:${signature}`;
    let verdict: ReplayVerdict;
    if (replays.checkAndRead) {
      const checked = await replays.checkAndRead(key, signedAt, signedAt + windowMs, now, serial);
      // The terminal as it is now decides: a secret rotated (or a terminal deleted) since it was known here stops the old one at once.
      // The signature claimed meanwhile was right for a secret of this terminal; its record only expires.
      if (checked.terminal?.secret !== terminal!.secret && !signs(checked.terminal)) {
        known!.forget(serial);
        throw invalid('the signature does not match');
      }
      ({ verdict, terminal, account } = checked);
      known!.remember(serial, terminal!);
    } else {
      verdict = await replays.check(key, signedAt, signedAt + windowMs, now);
    }
    if (verdict === 'replayed') throw new AppError('SIGNATURE_REPLAYED', 'this signature was already accepted; sign each request anew');
    if (verdict === 'before-restart') {
      throw new AppError('SIGNATURE_REPLAYED', 'this signature was made before the server restarted and may already have been accepted; sign the request anew');
    }
    // Read with the terminal, by either path: a terminal whose account is gone signs nothing.
    if (!account) throw invalid('the signature does not match');
    ctx.state.terminal = terminal!;
    ctx.state.account = account;
    await next();
  };
}

/** How many terminals one instance keeps the last read of: a bounded map, the least recently used forgotten first. */
const KNOWN_TERMINALS = 10_000;

class KnownTerminals {
  private readonly terminals = new Map<string, TerminalRecord>();

  constructor(private readonly capacity: number) {}

  get(serial: string): TerminalRecord | undefined {
    const terminal = this.terminals.get(serial);
    if (terminal) {
      // Used again: moved to the end, the last to be forgotten.
      this.terminals.delete(serial);
      this.terminals.set(serial, terminal);
    }
    return terminal;
  }

  remember(serial: string, terminal: TerminalRecord): void {
    this.terminals.delete(serial);
    this.terminals.set(serial, terminal);
    if (this.terminals.size > this.capacity) this.terminals.delete(this.terminals.keys().next().value!);
  }

  forget(serial: string): void {
    this.terminals.delete(serial);
  }
}
