// Money in integer cents, so split and commission arithmetic is exact.
import { exactCents } from '../../contracts/money-amount.js';

/** Currency units with at most 2 decimals (validated by the document) → cents, read from the amount's digits. */
export function toCents(amount: number): number {
  return exactCents(amount);
}

export function fromCents(cents: number): number {
  return cents / 100;
}

/** The commission: 1 % of each credit, rounded half-up to the cent (INTERFACE.md §5). */
export function commissionCents(grossCents: number): number {
  return Math.floor((grossCents + 50) / 100);
}

export interface Credit {
  receiver_id: string;
  receiver_type: 'owner' | 'partner';
  gross_cents: number;
  commission_cents: number;
  net_cents: number;
  status: 'credited' | 'failed';
}

/**
 * One credit per receiver: each partner of the distribution, then the owner
 * with what remains (INTERFACE.md §5). The distribution must not exceed the total.
 */
export function splitCredits(
  totalCents: number,
  distribution: Array<{ partner_id: string; amount_cents: number }>,
  ownerId: string,
  status: Credit['status'],
): Credit[] {
  const distributed = distribution.reduce((sum, part) => sum + part.amount_cents, 0);
  if (distributed > totalCents) throw new Error('the distribution exceeds the session amount');
  const credit = (receiver_id: string, receiver_type: Credit['receiver_type'], gross: number): Credit => {
    const commission = commissionCents(gross);
    return {
      receiver_id,
      receiver_type,
      gross_cents: gross,
      commission_cents: commission,
      net_cents: gross - commission,
      status,
    };
  };
  return [
    ...distribution.map((part) => credit(part.partner_id, 'partner', part.amount_cents)),
    credit(ownerId, 'owner', totalCents - distributed),
  ];
}

export function creditsSummary(credits: Credit[]) {
  const sum = (pick: (c: Credit) => number) => fromCents(credits.reduce((total, c) => total + pick(c), 0));
  return {
    gross_amount: sum((c) => c.gross_cents),
    commissions: sum((c) => c.commission_cents),
    net_amount: sum((c) => c.net_cents),
    total_credits: credits.length,
  };
}

export function publicCredit(credit: Credit) {
  return {
    receiver_id: credit.receiver_id,
    receiver_type: credit.receiver_type,
    gross_amount: fromCents(credit.gross_cents),
    commission: fromCents(credit.commission_cents),
    net_amount: fromCents(credit.net_cents),
    status: credit.status,
  };
}
