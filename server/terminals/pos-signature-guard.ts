import type { Middleware } from 'koa';
import { posSignatureBytes } from '../../contracts/pos-signature.js';
import { bytesEqualHex } from '../accounts/secrets.js';
import type { Account } from '../accounts/account.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { AppState } from '../http/context.js';
import type { Store, StoredRecord } from '../store/store.js';
import type { SignedWrite } from '../store/pg-store.js';
import type { CheckedWrite, ClaimWithWrite, ReplayGuard, ReplayVerdict } from './replay-guard.js';
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
export function posSignatureGuard(
  store: Store,
  clock: Clock,
  toleranceSeconds: number,
  replays: ReplayGuard,
  /** Operations whose handler makes the claim with its own write (ctx.state.signatureClaim), where the store can. */
  claimWithWrite: ReadonlySet<string> = new Set(),
): Middleware<AppState> {
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
    let { terminal, account } = known?.get(serial) ?? {};
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
    if (!known) {
      refuseReplay(await replays.check(key, signedAt, signedAt + windowMs, now));
      if (!account) throw invalid('the signature does not match'); // read with the terminal: a terminal whose account is gone signs nothing
      ctx.state.terminal = terminal!;
      ctx.state.account = account;
      return next();
    }

    const claim = { key, expiresAt: signedAt + windowMs, now, serial };
    /** The claim with the terminal and account as they are now; the terminal as it is now decides. */
    const claimAndRead = async (): Promise<{ terminal: TerminalRecord; account: Account }> => {
      const checked = await replays.checkAndRead!(key, signedAt, claim.expiresAt, now, serial);
      return settle(checked.verdict, checked, terminal!);
    };
    /** A claim's outcome against the terminal and account read with it. */
    const settle = (verdict: ReplayVerdict, fresh: { terminal?: TerminalRecord; account?: Account }, used: TerminalRecord) => {
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

    if (!account || !claimWithWrite.has(ctx.state.operationId!)) {
      ({ terminal, account } = await claimAndRead());
      ctx.state.terminal = terminal;
      ctx.state.account = account;
      return next();
    }

    // The handler makes the claim in the same statement as its write, so the claim costs no round trip of its own.
    // Until it has, nothing of the request is stored.
    const held = new HeldClaim(replays, store, { claim, expected: { terminal: terminal!, account } }, settle);
    ctx.state.terminal = terminal!;
    ctx.state.account = account;
    ctx.state.signatureClaim = held;
    try {
      await next();
    } catch (error) {
      // Refused before its write (a bad body, say): the claim alone, whose refusals come first, as for any other operation.
      if (!held.attempted) await claimAndRead();
      throw error;
    }
    if (!held.attempted) await claimAndRead();
  };
}

function refuseReplay(verdict: ReplayVerdict): void {
  if (verdict === 'replayed') throw new AppError('SIGNATURE_REPLAYED', 'this signature was already accepted; sign each request anew');
  if (verdict === 'before-restart') {
    throw new AppError('SIGNATURE_REPLAYED', 'this signature was made before the server restarted and may already have been accepted; sign the request anew');
  }
}

/** A signed request's replay claim, held for its handler to make with its one write. */
export interface SignatureClaim {
  /**
   * Writes `build(terminal, account)` as `id` of `collection` unless a
   * record is there, claiming the signature in the same step. Answers the
   * record written or the one that was there; refuses as the guard would.
   */
  insertIfAbsent<R extends StoredRecord>(collection: string, id: string, build: (terminal: TerminalRecord, account: Account) => R): Promise<{ record: R; inserted: boolean }>;
  /**
   * Replaces `id` of `collection` with `next` if it is still `expected`,
   * claiming the signature in the same step; refuses as the guard would.
   * When the terminal or its account's clock changed since `next` was
   * decided, the claim is made but nothing is written, and `account` is
   * the account as it is now, to decide again on.
   */
  replaceIf(collection: string, id: string, expected: StoredRecord, next: StoredRecord): Promise<{ replaced: boolean; account?: Account }>;
}

type Settle = (verdict: ReplayVerdict, fresh: { terminal?: TerminalRecord; account?: Account }, used: TerminalRecord) => { terminal: TerminalRecord; account: Account };

class HeldClaim implements SignatureClaim {
  attempted = false;

  constructor(
    private readonly replays: ReplayGuard,
    private readonly store: Store,
    private readonly request: { claim: ClaimWithWrite['claim']; expected: { terminal: TerminalRecord; account: Account } },
    private readonly settle: Settle,
  ) {}

  async insertIfAbsent<R extends StoredRecord>(collection: string, id: string, build: (terminal: TerminalRecord, account: Account) => R): Promise<{ record: R; inserted: boolean }> {
    const { terminal, account } = this.request.expected;
    const record = build(terminal, account);
    const checked = await this.claimWith({ kind: 'insert', collection, id, value: record });
    if (!checked.fresh) return checked.existing ? { record: checked.existing as R, inserted: false } : { record, inserted: true };
    // Built from what changed since: built again from the terminal and account as they are now, and written on its own.
    const rebuilt = build(checked.fresh.terminal, checked.fresh.account);
    const existing = await this.store.insertIfAbsent<R>(collection, id, rebuilt);
    return existing ? { record: existing, inserted: false } : { record: rebuilt, inserted: true };
  }

  async replaceIf(collection: string, id: string, expected: StoredRecord, next: StoredRecord): Promise<{ replaced: boolean; account?: Account }> {
    const checked = await this.claimWith({ kind: 'replace', collection, id, expected, value: next });
    return checked.fresh ? { replaced: false, account: checked.fresh.account } : { replaced: checked.written };
  }

  /** The claim and the write in one step, settled against the terminal as it is now when it changed (which `fresh` then holds). */
  private async claimWith(write: SignedWrite): Promise<CheckedWrite & { fresh?: { terminal: TerminalRecord; account: Account } }> {
    if (this.attempted) throw new Error('a signature is claimed once');
    this.attempted = true;
    const { terminal, account } = this.request.expected;
    const checked = await this.replays.checkAndWrite!({ claim: this.request.claim, expected: { terminal, clockOffsetMs: account.clock_offset_ms }, write });
    if (!checked.changed) {
      this.settle(checked.verdict, { terminal, account }, terminal);
      return checked;
    }
    return { ...checked, fresh: this.settle(checked.verdict, checked.changed, terminal) };
  }
}

/** How many terminals one instance keeps the last read of: a bounded map, the least recently used forgotten first. */
const KNOWN_TERMINALS = 10_000;

class KnownTerminals {
  private readonly terminals = new Map<string, { terminal: TerminalRecord; account: Account }>();

  constructor(private readonly capacity: number) {}

  /** What was last read of it. Every request that uses it remembers it again (or forgets it), which makes it the most recently used. */
  get(serial: string): { terminal: TerminalRecord; account: Account } | undefined {
    return this.terminals.get(serial);
  }

  remember(serial: string, terminal: TerminalRecord, account: Account): void {
    this.terminals.delete(serial);
    this.terminals.set(serial, { terminal, account });
    if (this.terminals.size > this.capacity) this.terminals.delete(this.terminals.keys().next().value!);
  }

  forget(serial: string): void {
    this.terminals.delete(serial);
  }
}
