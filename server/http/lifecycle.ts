import type { Server } from 'node:http';
import type { SimulatorApp } from '../app.js';
import type { Store } from '../store/store.js';
import { serve } from './serve.js';

// Starting and stopping the app, one way for every entry point (npm start,
// the demo, a command's own server, the test kit), in one order: the
// scheduler, then the HTTP server (with the relay), then the dispatcher and
// the hourly purge; and back: nothing new scheduled or swept, the relay and
// console streams closed, the requests in flight answered, the deliveries in
// flight recorded, the store closed last, so every acknowledged write is in
// it and nothing touches the store after (lifecycle.test.ts).

/** Test data past its lifetime goes hourly (and at every clock advance, per account). */
const PURGE_EVERY_MS = 3_600_000;

export interface StartOptions {
  host: string;
  port: number;
  /** A listen that fails (the port taken): said by the caller, in its words. */
  onError?: (error: NodeJS.ErrnoException) => void;
  /**
   * `run` (default): the scheduler and the dispatcher run on their timers.
   * `by-hand`: a test moves them itself; stopping lets due deliveries finish.
   */
  jobs?: 'run' | 'by-hand';
  /** How long requests in flight may take to finish once stopping (default 5 s; 0: cut them at once). */
  graceMs?: number;
  /** Told of a purge that failed (the next hour's tries again). */
  onPurgeError?: (error: Error) => void;
}

export interface StartedApp {
  server: Server;
  baseUrl: string;
  /** Stops it, in order; the store is closed last. Calling it again does nothing more. */
  stop(): Promise<void>;
}

export async function startApp(app: SimulatorApp, store: Store, options: StartOptions): Promise<StartedApp> {
  const running = (options.jobs ?? 'run') === 'run';
  if (running) app.jobs.scheduler.start();
  let served: { server: Server; baseUrl: string };
  try {
    served = await serve(app, options);
  } catch (error) {
    app.jobs.scheduler.stop();
    throw error;
  }
  if (running) app.jobs.dispatcher.start();
  let purging: Promise<unknown> = Promise.resolve();
  const purgeTimer = running
    ? setInterval(() => {
        purging = app.jobs.purge().catch((error: Error) => options.onPurgeError?.(error));
      }, PURGE_EVERY_MS).unref()
    : undefined;
  const { server } = served;
  let stopped: Promise<void> | null = null;
  const stop = async () => {
    if (!running) await app.jobs.dispatcher.runDue().catch(() => undefined);
    app.jobs.scheduler.stop();
    clearInterval(purgeTimer);
    app.jobs.relay.close();
    app.jobs.consoleStreams.close();
    const closed = new Promise((resolve) => server.close(resolve));
    const graceMs = options.graceMs ?? 5000;
    server.closeIdleConnections();
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    if (graceMs === 0) server.closeAllConnections();
    await closed;
    clearTimeout(force);
    // Attempts in flight are recorded before the store closes (relayed ones have already failed with the relay closed).
    if (running) await app.jobs.dispatcher.stop();
    await purging;
    await store.close();
  };
  return { ...served, stop: () => (stopped ??= stop()) };
}
