import type { Keys, Session, SignedParts, TraceEntry } from './types.js';

// What the open console holds: the token it works with (kept in the tab's
// sessionStorage, never elsewhere), what the server last said, and the
// timers and stream of the live updates.

export interface PosView {
  terminalsPage: number;
  ordersPage: number;
  /** What was last drawn, to draw again only when something changed. */
  seen: string | null;
  timer: ReturnType<typeof setTimeout> | null;
}

export const newPosView = (): PosView => ({ terminalsPage: 1, ordersPage: 1, seen: null, timer: null });

export const state = {
  token: sessionStorage.getItem('console-token') ?? '',
  locked: false,
  keys: null as Keys | null,
  /** The trace's cursor: entries after it come by the stream. */
  cursor: null as string | null,
  paused: false,
  stream: null as AbortController | null,
  timer: null as ReturnType<typeof setTimeout> | null,
  progressTimer: null as ReturnType<typeof setInterval> | null,
  clockTimer: null as ReturnType<typeof setInterval> | null,
  /** The account's clock as last read, and when (on the page's clock). */
  clockBase: null as { at: number; readAt: number; offset: number } | null,
  sessionsPage: 1,
  /** Trace entries on the page, by id. */
  entries: new Map<string, TraceEntry>(),
  /** What the last resend of each event got, said again when its row is drawn again. */
  resent: new Map<string, string>(),
  session: null as Session | null,
  event: null as TraceEntry | null,
  verifyParts: null as SignedParts | null,
  pos: newPosView(),
};
