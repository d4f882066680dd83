// What an Adyen test terminal does with a payment, by the last three digits
// of its amount in minor units (Adyen's testing guide): the cases a cash
// register must handle without a real card. Everything else approves.

import type { ErrorCondition } from './messages.js';

export interface Refusal {
  condition: ErrorCondition;
  /** The refusal reason, as AdditionalResponse's refusalReason carries it. */
  refusalReason: string;
  message?: string;
}

const REFUSALS: Record<number, Refusal> = {
  124: { condition: 'Refusal', refusalReason: '210 Not enough balance', message: 'NOT_ENOUGH_BALANCE' },
  125: { condition: 'Refusal', refusalReason: '199 Card blocked', message: 'BLOCK_CARD' },
  126: { condition: 'Refusal', refusalReason: '228 Card expired', message: 'CARD_EXPIRED' },
  127: { condition: 'Refusal', refusalReason: '214 Declined online', message: 'INVALID_AMOUNT' },
  128: { condition: 'InvalidCard', refusalReason: '101 Invalid card', message: 'INVALID_CARD' },
  134: { condition: 'WrongPIN', refusalReason: '129 Invalid online PIN', message: 'WRONG_PIN' },
};

/** The refusal a test terminal answers for this amount (minor units), or undefined when it approves. */
export function refusalFor(minorUnits: number): Refusal | undefined {
  return REFUSALS[Math.round(minorUnits) % 1000];
}
