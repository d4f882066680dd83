// What is left before a due date, as the payment page shows it: the server
// writes it into the page, and the page's script (web/main.ts) ticks it on.

/** HH:MM:SS, with whole days beyond one; "due date reached" at or past it. */
export function formatLeft(leftMs: number): string {
  if (leftMs <= 0) return 'due date reached';
  const days = Math.floor(leftMs / 86_400_000);
  return new Date(leftMs).toISOString().slice(11, 19) + (days > 0 ? ` (+${days} d)` : '');
}
