import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../server/app.js';
import { systemClock } from '../server/clock.js';
import { defaultConfig } from '../server/config.js';
import { startApp } from '../server/http/lifecycle.js';
import { EmbeddedStore } from '../server/store/embedded/embedded-store.js';

/** A server of ours on the embedded store in a temporary folder, on a free port, for a command run without --base-url (race, svc-scenario); `stop` removes the folder. */
export async function startOwnServer(): Promise<{ baseUrl: string; stop: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-scenario-'));
  const store = await EmbeddedStore.open({ dir });
  const app = createApp({ store, clock: systemClock, config: { ...defaultConfig, dataDir: dir, logLevel: 'silent' } });
  const started = await startApp(app, store, { host: '127.0.0.1', port: 0, graceMs: 0 });
  return {
    baseUrl: started.baseUrl,
    stop: async () => {
      await started.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
