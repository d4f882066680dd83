/** Most entries a journal keeps in a map of orders (tickets, declines, payments); the oldest go first: an order that old is no longer open. */
export const KEPT_LIMIT = 10_000;

/** The newest `KEPT_LIMIT` entries of a map, in their order: a journal's maps stay bounded however long it runs. */
export function bounded<T>(entries: Record<string, T>): Record<string, T> {
  const keys = Object.keys(entries);
  if (keys.length <= KEPT_LIMIT) return entries;
  return Object.fromEntries(keys.slice(keys.length - KEPT_LIMIT).map((key) => [key, entries[key]!]));
}
