import { state } from './state.js';
import { el } from './dom.js';

/** An amount in a currency's own form: its code and its number of decimals (CLP none, USD two). */
function moneyFormat(currency: string): Intl.NumberFormat | null {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency, currencyDisplay: 'code' });
  } catch {
    return null;
  }
}

export function money(amount: number, currency: string): string {
  const format = moneyFormat(currency);
  return format ? format.format(amount) : `${amount} ${currency}`;
}

/** A POS order's amount is in minor units (cents): shown in the currency's units. */
export function minorMoney(amount: number, currency: string): string {
  const format = moneyFormat(currency);
  return format
    ? format.format(amount / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 0))
    : `${amount} ${currency} (minor units)`;
}

const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** The account's now: the server's clock as last read, ticking here; the page's own before the first read. */
const accountNow = () => (state.clockBase ? state.clockBase.at + (Date.now() - state.clockBase.readAt) : Date.now());

/** ' (3 minutes ago)', ' (in 2 hours)': whole units, so it changes at most once a minute. */
function relativeTime(iso: string): string {
  const seconds = (Date.parse(iso) - accountNow()) / 1000;
  if (Math.abs(seconds) < 60) return seconds <= 0 ? ' (less than a minute ago)' : ' (in less than a minute)';
  const [unit, size] =
    Math.abs(seconds) < 3600
      ? (['minute', 60] as const)
      : Math.abs(seconds) < 86400
        ? (['hour', 3600] as const)
        : (['day', 86400] as const);
  return ` (${RELATIVE.format(Math.trunc(seconds / size), unit)})`;
}

/**
 * A time as the reader's local date and time, how long ago (or how soon) on
 * the account's clock, and the exact ISO time on hover; never wrapped
 * mid-date. The relative part follows the ticking clock (showClock).
 */
export function when(iso: string | null | undefined): HTMLTimeElement {
  const node = el(
    'time',
    iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }) : '',
    { datetime: iso ?? '', title: iso ?? '' },
  );
  if (iso) node.append(el('span', relativeTime(iso), { class: 'relative muted' }));
  return node;
}

/** Brings every relative time on the page up to the clock. */
export function refreshRelativeTimes(): void {
  for (const node of document.querySelectorAll('time[datetime] .relative')) {
    const text = relativeTime((node.parentNode as Element).getAttribute('datetime')!);
    if (node.textContent !== text) node.textContent = text;
  }
}

/** A state as a colour-and-text badge: good (paid, accredited), bad (failed, expired), or waiting. */
const STATE_TONES: Record<string, string> = {
  paid: 'ok',
  accredited: 'ok',
  credited: 'ok',
  failed: 'bad',
  expired: 'bad',
  pending: 'wait',
  scheduled: 'wait',
  none: 'wait',
};
export const stateBadge = (value: string) => el('span', value, { class: `badge ${STATE_TONES[value] ?? 'wait'}` });

/** A status as a badge: colour and words, so 500 and 200 never look alike. */
export function statusBadge(attempt: { status?: number | null }): HTMLSpanElement {
  const ok = typeof attempt.status === 'number' && attempt.status >= 200 && attempt.status < 300;
  const text =
    attempt.status !== null && attempt.status !== undefined
      ? `${attempt.status}${ok ? ' delivered' : ' failed'}`
      : 'no answer';
  return el('span', text, { class: `badge ${ok ? 'ok' : 'bad'}` });
}
