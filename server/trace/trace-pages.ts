import type { Scalar, Store } from '../store/store.js';
import type { TraceRecord } from './trace.js';

/** One page of trace entries, newest first, and the cursor to poll from for what is written after them. */
export interface TracePage {
  entries: TraceRecord[];
  cursor: string;
}

/**
 * The trace entries `where` selects, newest first, `limit` of them. A first
 * read is ordered by `firstBy` (when it happened, or when it was written);
 * a poll (`after`, the cursor a page answered) is by `order`, when each was
 * written, so an attempt's entry (written when it ends) is never missed.
 * Either way through an index, one bounded read.
 */
export async function tracePage(
  store: Store,
  where: Readonly<Record<string, Scalar>>,
  options: { limit: number; after?: string | undefined; firstBy: 'listed' | 'order' },
): Promise<TracePage> {
  const { limit, after } = options;
  const entries = after
    ? (
        await store.list<TraceRecord>('trace', {
          where,
          range: { field: 'order', min: Number(after) + 1 },
          orderBy: { field: 'order', direction: 'asc' },
          limit,
        })
      ).reverse()
    : await store.list<TraceRecord>('trace', { where, orderBy: { field: options.firstBy, direction: 'desc' }, limit });
  const newest = entries.reduce((most, entry) => Math.max(most, entry.order), after ? Number(after) : 0);
  return { entries, cursor: String(newest) };
}
