import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../server/app.js';
import { systemClock } from '../server/clock.js';
import { defaultConfig } from '../server/config.js';
import { EmbeddedStore } from '../server/store/embedded-store.js';

/** A server of ours on the embedded store in a temporary folder, on a free port, for a command run without --base-url (race, svc-scenario); `stop` removes the folder. */
export async function startOwnServer(): Promise<{ baseUrl: string; stop: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-scenario-'));
  const store = await EmbeddedStore.open({ dir });
  const app = createApp({ store, clock: systemClock, config: { ...defaultConfig, dataDir: dir, logLevel: 'silent' } });
  const server = createServer(app.callback()).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      app.jobs.relay.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
