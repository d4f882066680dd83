// The daily batch close (--close-at HH:MM, local time), as pure functions
// of now: when it next comes, when it last came, and whether a bridge that
// was not running then has one to make up.

export interface DailyTime {
  hours: number;
  minutes: number;
}

/** The next instant at the local time given, strictly after `now`. */
export function nextOccurrence(at: DailyTime, now: number): number {
  const next = new Date(now);
  next.setHours(at.hours, at.minutes, 0, 0);
  if (next.getTime() <= now) next.setDate(next.getDate() + 1);
  return next.getTime();
}

/** The last instant at the local time given, at or before `now`. */
export function lastOccurrence(at: DailyTime, now: number): number {
  const last = new Date(now);
  last.setHours(at.hours, at.minutes, 0, 0);
  if (last.getTime() > now) last.setDate(last.getDate() - 1);
  return last.getTime();
}

/**
 * Whether the close due at the last occurrence was missed: the last close
 * the bridge asked for came before it. With no close on record there is
 * nothing to go by (a first start), and nothing is made up.
 */
export function missedClose(at: DailyTime, lastRequestedAt: string | undefined, now: number): boolean {
  if (lastRequestedAt === undefined) return false;
  return Date.parse(lastRequestedAt) < lastOccurrence(at, now);
}
