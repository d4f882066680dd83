import type { Account } from '../accounts/account.js';
import type { Claim, Store } from '../store/store.js';
import {
  decidedOn,
  SIGNATURES,
  terminalWithAccount,
  type SignatureClaim,
  type SignatureLedger,
} from './signature-ledger.js';
import type { TerminalRecord } from './terminal.js';

/** Expired records go in small bites: a busy embedded store deletes a few seconds' worth in one transaction, not a minute's. */
const SWEEP_EVERY_MS = 5_000;

/** A signature's marker: held until its replay would be stale anyway, then taken over by a new claim or swept. */
const markerOf = ({ key, expiresAt, now }: SignatureClaim): Claim => ({
  collection: SIGNATURES,
  id: key,
  value: { expires_at: expiresAt },
  liveUntil: 'expires_at',
  now,
});

/**
 * Accepted signatures are records of the store: a signature accepted by one
 * instance is a replay on every other, and after any restart. Each claim is
 * one step with the terminal's read or with the request's write (one
 * statement on PostgreSQL, one journal line on the embedded store, durable
 * before the answer); expired records are swept through their expiry
 * index every few seconds, keeping the collection to one window.
 */
export function storeSignatureLedger(store: Store): SignatureLedger {
  let lastSweep = 0;
  const sweepNowAndThen = (now: number) => {
    if (now - lastSweep > SWEEP_EVERY_MS) {
      lastSweep = now;
      void store.deleteUpTo(SIGNATURES, 'expires_at', now).catch(() => undefined); // a sweep missed is done at the next
    }
  };
  return {
    async claimAndRead(claim) {
      const { claimed, record, linked } = await store.claimAndRead<TerminalRecord, Account>(
        markerOf(claim),
        terminalWithAccount(claim.serial),
      );
      sweepNowAndThen(claim.now);
      return {
        verdict: claimed ? 'new' : 'replayed',
        ...(record ? { terminal: record } : {}),
        ...(linked ? { account: linked } : {}),
      };
    },
    async claimAndWrite(claim, basis, write) {
      const outcome = await store.claimAndWrite<TerminalRecord, Account>(
        markerOf(claim),
        terminalWithAccount(claim.serial),
        decidedOn(basis),
        write,
      );
      sweepNowAndThen(claim.now);
      const { claimed, written, changed, existing } = outcome;
      return {
        verdict: claimed ? 'new' : 'replayed',
        written,
        ...(changed
          ? {
              changed: {
                ...(changed.record ? { terminal: changed.record } : {}),
                ...(changed.linked ? { account: changed.linked } : {}),
              },
            }
          : {}),
        ...(existing ? { existing } : {}),
      };
    },
  };
}
