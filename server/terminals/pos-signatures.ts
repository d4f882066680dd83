import { posSignatureBytes } from '../../contracts/pos-signature.js';
import type { Account } from '../accounts/account.js';
import { bytesEqualHex } from '../accounts/secrets.js';
import type { Clock } from '../clock.js';
import { appError } from '../errors.js';
import type { ClaimedWrite, Store, StoredRecord } from '../store/store.js';
import { KnownTerminals } from './known-terminals.js';
import type { ReplayVerdict, SignatureClaim, SignatureLedger, TerminalNow } from './signature-ledger.js';
import type { TerminalRecord } from './terminal.js';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const HEX_SIGNATURE = /^[0-9a-f]{64}$/;

const invalid = (message: string) => appError('SIGNATURE_INVALID', message);

/** What a signed request carries: its headers, the terminal its path names, and the bytes signed. */
export interface SignedRequest {
  timestamp: string;
  signature: string;
  serial: string;
  url: string;
  rawBody: Buffer;
}

/** The terminal a signed write is decided on, and its account (whose clock a record's times are on). */
export interface Signer {
  terminal: TerminalRecord;
  account: Account;
}

/**
 * A request's POS signature, checked against the terminal as this instance
 * knew it. It is claimed once: by the one write its handler hands it to
 * (PosSignatures.insertIfAbsent / replaceIf), or on its own after the
 * handler when nothing wrote with it. A claim that finds the terminal or
 * its account changed updates `signer`.
 */
export class PosSignature {
  private attempted = false;

  constructor(
    readonly claim: SignatureClaim,
    public signer: Signer,
    /** Whether this signature is right for `terminal` (constant time). */
    readonly signs: (terminal: TerminalRecord | undefined) => boolean,
  ) {}

  get terminal(): TerminalRecord {
    return this.signer.terminal;
  }

  get account(): Account {
    return this.signer.account;
  }

  /** Whether a claim was attempted (made, refused, or failed on the way): a signature is claimed at most once. */
  get claimAttempted(): boolean {
    return this.attempted;
  }

  /** Marks the one claim; false when it was already attempted. */
  begin(): boolean {
    if (this.attempted) return false;
    this.attempted = true;
    return true;
  }
}

/**
 * The POS signature of INTERFACE.md §2 and its claims, under the
 * SignatureLedger port: checked in this order (headers well formed,
 * terminal known, signature right in constant time, timestamp within the
 * tolerance of the server clock), then claimed once, where a signature
 * already accepted is SIGNATURE_REPLAYED. An unknown terminal answers like
 * a wrong signature, so serials cannot be probed.
 *
 * The check uses the terminal as this instance last read it; the claim
 * reads it again as it is now, in the same step, and that read decides.
 * Signed writes go through here, so the claim rides on the write (one
 * statement on PostgreSQL), and a write decided on a terminal or account
 * that changed meanwhile is built again from them as they are now: the
 * one place that retries it.
 */
export class PosSignatures {
  private readonly known = new KnownTerminals();
  private readonly windowMs: number;

  private readonly store: Store;
  private readonly clock: Clock;
  private readonly toleranceSeconds: number;
  private readonly ledger: SignatureLedger;

  constructor(options: { store: Store; clock: Clock; toleranceSeconds: number; ledger: SignatureLedger }) {
    ({ store: this.store, clock: this.clock, toleranceSeconds: this.toleranceSeconds, ledger: this.ledger } = options);
    this.windowMs = this.toleranceSeconds * 1000;
  }

  /** The request's signature checked, not yet claimed; refuses with SIGNATURE_INVALID or SIGNATURE_STALE. */
  async verify(request: SignedRequest): Promise<PosSignature> {
    const { timestamp, signature, serial } = request;
    if (!timestamp || !signature) throw invalid('send x-pos-timestamp and x-pos-signature');
    const signedAt = Date.parse(timestamp);
    if (!ISO_TIME.test(timestamp) || Number.isNaN(signedAt)) throw invalid('x-pos-timestamp must be an ISO 8601 time');
    if (!HEX_SIGNATURE.test(signature)) throw invalid('x-pos-signature must be 64 lowercase hex characters');

    const signs = (terminal: TerminalRecord | undefined) => {
      // Compute even for an unknown terminal, so both take as long.
      // Stryker disable next-line StringLiteral: the stand-in key only spends the time; an unknown terminal is refused whatever it is
      const expected = posSignatureBytes(terminal?.secret ?? '0'.repeat(64), timestamp, request.url, request.rawBody);
      return bytesEqualHex(expected, signature) && terminal !== undefined;
    };
    let { terminal, account } = this.known.get(serial) ?? {};
    if (!terminal || !signs(terminal)) {
      // Not known here, or its secret may have been rotated since: as the store has it now, with its account.
      [terminal, account] = await this.store.getLinked<TerminalRecord, Account>(
        'terminals',
        serial,
        'account_id',
        'accounts',
      );
      if (!terminal || !signs(terminal)) {
        this.known.forget(serial);
        throw invalid('the signature does not match');
      }
    }
    const now = this.clock.now();
    if (Math.abs(now - signedAt) > this.windowMs) {
      throw appError('SIGNATURE_STALE', this.toleranceSeconds);
    }
    const claim: SignatureClaim = {
      key: `${serial}:${signature}`,
      serial,
      signedAt,
      expiresAt: signedAt + this.windowMs,
      now,
    };
    if (account) return new PosSignature(claim, { terminal, account }, signs);
    // Read without its account (a terminal whose account is gone signs nothing): claimed on its own now, and that read decides.
    const { verdict, ...fresh } = await this.ledger.claimAndRead(claim);
    const claimed = new PosSignature(claim, this.decide(claim, terminal, signs, verdict, fresh), signs);
    claimed.begin();
    return claimed;
  }

  /** The claim on its own, for a request that wrote nothing with it; refuses a replay, or a signer gone or re-keyed meanwhile. */
  async claimAlone(signature: PosSignature): Promise<void> {
    if (!signature.begin()) return;
    const { verdict, ...fresh } = await this.ledger.claimAndRead(signature.claim);
    signature.signer = this.decide(signature.claim, signature.terminal, signature.signs, verdict, fresh);
  }

  /** Inserts `build(signer)` under `id` unless a record is there, with the signature's claim in the same step. */
  async insertIfAbsent<T extends StoredRecord>(
    signature: PosSignature,
    collection: string,
    id: string,
    build: (signer: Signer) => T,
  ): Promise<{ record: T; inserted: boolean }> {
    const insertPlain = async (record: T) => {
      const there = await this.store.insertIfAbsent<T>(collection, id, record);
      return there ? { record: there, inserted: false } : { record, inserted: true };
    };
    if (!signature.begin()) return insertPlain(build(signature.signer));
    const record = build(signature.signer);
    const outcome = await this.withClaim(signature, { kind: 'insert', collection, id, value: record });
    if (outcome === 'changed') return insertPlain(build(signature.signer));
    return outcome.written ? { record, inserted: true } : { record: outcome.existing as T, inserted: false };
  }

  /** Replaces the record under `id` with `build(signer)` if it is still `expected`, with the signature's claim in the same step; answers whether it did. */
  async replaceIf(
    signature: PosSignature,
    collection: string,
    id: string,
    expected: StoredRecord,
    build: (signer: Signer) => StoredRecord,
  ): Promise<boolean> {
    if (!signature.begin()) return this.store.replaceIf(collection, id, expected, build(signature.signer));
    const write: ClaimedWrite = { kind: 'replace', collection, id, expected, value: build(signature.signer) };
    const outcome = await this.withClaim(signature, write);
    if (outcome === 'changed') return this.store.replaceIf(collection, id, expected, build(signature.signer));
    return outcome.written;
  }

  /** The write with the claim; 'changed' when the signer changed meanwhile (then claimed, nothing written, and `signature.signer` as it is now). */
  private async withClaim(
    signature: PosSignature,
    write: ClaimedWrite,
  ): Promise<'changed' | { written: boolean; existing?: StoredRecord }> {
    const basis = signature.signer;
    const outcome = await this.ledger.claimAndWrite(signature.claim, basis, write);
    signature.signer = this.decide(
      signature.claim,
      basis.terminal,
      signature.signs,
      outcome.verdict,
      outcome.changed ?? basis,
    );
    return outcome.changed ? 'changed' : outcome;
  }

  /** A claim's verdict against the terminal and account read with it: the terminal as it is now decides. */
  private decide(
    { serial }: SignatureClaim,
    used: TerminalRecord,
    signs: PosSignature['signs'],
    verdict: ReplayVerdict,
    now: TerminalNow,
  ): Signer {
    // A secret rotated (or a terminal deleted) since it was known here stops the old one at once.
    // The signature claimed meanwhile was right for a secret of this terminal; its record only expires.
    if (now.terminal?.secret !== used.secret && !signs(now.terminal)) {
      this.known.forget(serial);
      throw invalid('the signature does not match');
    }
    if (now.terminal && now.account) this.known.remember(serial, now.terminal, now.account);
    else this.known.forget(serial);
    if (verdict === 'replayed') throw appError('SIGNATURE_REPLAYED');
    if (!now.terminal || !now.account) throw invalid('the signature does not match');
    return { terminal: now.terminal, account: now.account };
  }
}
