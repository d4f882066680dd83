// How each order went, in words made from its own history, so that what a
// row of the race report says always agrees with its counts: a sentence a
// way an order can go, and how many went that way. A caption says what an
// interleaving sends; only these say what came of it.

/** One line: what the demo shows, and why it matters to whoever builds on the server. */
export const WHAT_IT_SHOWS =
  'What this shows: a merchant discards an order while its POS confirms the payment, in seven timings; whichever arrives first, money the POS collected is never lost: it is recorded PAID, or voided and given back, never both and never neither.';

const stepWords: Record<string, string> = {
  'PENDING→DISCARDED': 'discarded first',
  'PENDING→PAID': 'paid first',
  'DISCARDED→PAID': 'then paid all the same (the POS had collected, so the payment outranks the discard)',
  'PAID→VOID_PENDING': "then a void, on the merchant's discard",
  'VOID_PENDING→VOIDED': 'then the POS gave the money back',
};

/** The order's way from PENDING to where it ended, e.g. "discarded first, then paid all the same (…): PAID". */
export function pathInWords(history: ReadonlyArray<{ from: string; to: string }>, final: string): string {
  const steps = history.map(({ from, to }) => stepWords[`${from}→${to}`] ?? `then ${from} → ${to}`);
  return `${steps.length === 0 ? 'left as it was' : steps.join(', ')}: ${final}`;
}

/** The final state a path's words end with. */
export const finalOfPath = (words: string): string => words.slice(words.lastIndexOf(': ') + 2);
