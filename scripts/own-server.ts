import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../server/app.js';
import { systemClock } from '../server/clock.js';
import { defaultConfig } from '../server/config.js';
import { serve } from '../server/http/serve.js';
import { EmbeddedStore } from '../server/store/embedded-store.js';

/** A server of ours on the embedded store in a temporary folder, on a free port, for a command run without --base-url (race, svc-scenario); `stop` removes the folder. */
export async function startOwnServer(): Promise<{ baseUrl: string; stop: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-scenario-'));
  const store = await EmbeddedStore.open({ dir });
  const app = createApp({ store, clock: systemClock, config: { ...defaultConfig, dataDir: dir, logLevel: 'silent' } });
  const { server, baseUrl } = await serve(app, { host: '127.0.0.1', port: 0 });
  app.jobs.scheduler.start();
  app.jobs.dispatcher.start();
  return {
    baseUrl,
    stop: async () => {
      app.jobs.scheduler.stop();
      app.jobs.relay.close();
      app.jobs.consoleStreams.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await app.jobs.dispatcher.stop();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
