import type { Middleware } from 'koa';
import { posSignatureBytes } from '../../contracts/pos-signature.js';
import { bytesEqualHex } from '../accounts/secrets.js';
import type { Account } from '../accounts/account.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { AppState } from '../http/context.js';
import type { Store } from '../store/store.js';
import { ClaimCarryingStore } from './claim-carrying-store.js';
import { KnownTerminals } from './known-terminals.js';
import type { ReplayVerdict, SignatureClaim, SignatureLedger, TerminalNow } from './signature-ledger.js';
import { TerminalChangedError, type TerminalRecord } from './terminal.js';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const HEX_SIGNATURE = /^[0-9a-f]{64}$/;

const invalid = (message: string) => new AppError('SIGNATURE_INVALID', message);

/**
 * Checks the POS signature of INTERFACE.md §2 on requests under
 * /api/v1/pos-terminals/{serialNumber}/**, in this order: headers present
 * and well formed, terminal known, signature right (constant time), timestamp
 * within the tolerance of the server clock, signature not already accepted.
 * An unknown terminal answers like a wrong signature, so serials cannot be
 * probed. Puts the terminal and its account on the state.
 *
 * The signature is checked against the terminal as this instance last read
 * it; the claim (in `ledger`) reads it again as it is now, in the same
 * step, and that read decides. Operations in `claimWithWrite` make the
 * claim with their one write instead (ctx.state.store carries it), so the
 * claim costs no step of its own.
 */
export function posSignatureGuard(
  store: Store,
  clock: Clock,
  toleranceSeconds: number,
  ledger: SignatureLedger,
  /** Operations whose handler makes the claim with its own write. */
  claimWithWrite: ReadonlySet<string> = new Set(),
): Middleware<AppState> {
  const windowMs = toleranceSeconds * 1000;
  const known = new KnownTerminals();
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
      const expected = posSignatureBytes(
        terminal?.secret ?? '0'.repeat(64),
        timestamp,
        ctx.originalUrl,
        ctx.state.rawBody!,
      ); // read-body sets it on every request, empty without a body
      return bytesEqualHex(expected, signature) && terminal !== undefined;
    };
    let { terminal, account } = known.get(serial) ?? {};
    if (!terminal || !signs(terminal)) {
      // Not known here, or its secret may have been rotated since: as the store has it now, with its account.
      [terminal, account] = await store.getLinked<TerminalRecord, Account>(
        'terminals',
        serial,
        'account_id',
        'accounts',
      );
      if (!signs(terminal)) {
        known.forget(serial);
        throw invalid('the signature does not match');
      }
    }
    const used = terminal!;

    const now = clock.now();
    if (Math.abs(now - signedAt) > windowMs) {
      throw new AppError('SIGNATURE_STALE', `x-pos-timestamp is more than ${toleranceSeconds} s from the server clock`);
    }
    const claim: SignatureClaim = {
      key: `${serial}:${signature}`,
      serial,
      signedAt,
      expiresAt: signedAt + windowMs,
      now,
    };

    /** A claim's outcome against the terminal and account read with it: the terminal as it is now decides. */
    const settle = (verdict: ReplayVerdict, fresh: TerminalNow): { terminal: TerminalRecord; account: Account } => {
      // A secret rotated (or a terminal deleted) since it was known here stops the old one at once.
      // The signature claimed meanwhile was right for a secret of this terminal; its record only expires.
      if (fresh.terminal?.secret !== used.secret && !signs(fresh.terminal)) {
        known.forget(serial);
        throw invalid('the signature does not match');
      }
      if (fresh.account) known.remember(serial, fresh.terminal!, fresh.account);
      else known.forget(serial);
      refuseReplay(verdict);
      if (!fresh.account) throw invalid('the signature does not match');
      return { terminal: fresh.terminal!, account: fresh.account };
    };
    const claimAndRead = async () => {
      const { verdict, ...fresh } = await ledger.claimAndRead(claim);
      return settle(verdict, fresh);
    };

    if (!account || !claimWithWrite.has(ctx.state.operationId!)) {
      ({ terminal, account } = await claimAndRead());
      ctx.state.terminal = terminal;
      ctx.state.account = account;
      return next();
    }

    // The handler makes the claim with its first write. Until it has, nothing of the request is stored.
    const basis = { terminal: used, account };
    const carrying = new ClaimCarryingStore(store, async (write) => {
      const outcome = await ledger.claimAndWrite(claim, basis, write);
      if (!outcome.changed) {
        settle(outcome.verdict, basis);
        return outcome;
      }
      // Decided on what changed since: decided again on the terminal and account as they are now.
      const fresh = settle(outcome.verdict, outcome.changed);
      ctx.state.terminal = fresh.terminal;
      ctx.state.account = fresh.account;
      throw new TerminalChangedError(fresh.terminal, fresh.account);
    });
    ctx.state.terminal = used;
    ctx.state.account = account;
    ctx.state.store = carrying;
    try {
      await next();
    } catch (error) {
      // Refused before its write (a bad body, say): the claim alone, whose refusals come first, as for any other operation.
      if (!carrying.claimed) await claimAndRead();
      throw error;
    }
    if (!carrying.claimed) await claimAndRead();
  };
}

function refuseReplay(verdict: ReplayVerdict): void {
  if (verdict === 'replayed')
    throw new AppError('SIGNATURE_REPLAYED', 'this signature was already accepted; sign each request anew');
}
