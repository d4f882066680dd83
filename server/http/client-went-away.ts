// A client that closes its connection before the answer is whole (a
// console tab closed on its live trace, a curl stopped with Ctrl-C) is a
// normal end of that answer, not a fault of ours: Koa reports it as an error
// of the stream it was piping, and alerting on error lines must not fire.

const GONE = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE']);

/** Whether an error Koa reports only says that the client went away mid-answer. */
export const clientWentAway = (error: Error): boolean => GONE.has((error as NodeJS.ErrnoException).code ?? '');
