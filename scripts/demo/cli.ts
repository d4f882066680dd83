// npm run demo [-- --base-url URL]
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { createApp } from '../../server/app.js';
import { systemClock } from '../../server/clock.js';
import { loadConfig } from '../../server/config.js';
import { createLogger } from '../../server/log.js';
import { EmbeddedStore } from '../../server/store/embedded-store.js';
import { describeWorld, seedDemo } from './seed.js';

const usage = `usage: npm run demo -- [--base-url URL]

Seeds a demo world (an account, terminals, orders in every state,
settlements, payment sessions in every status with split receivers) and
prints the URLs to open and the tokens to use. Without --base-url it starts
a server on PORT (3000) with its data in DATA_DIR (./data-demo) and keeps it
running; stop it with Ctrl-C.
`;
const { values } = parseArgs({ options: { 'base-url': { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
if (values.help) {
  process.stdout.write(usage);
  process.exit(0);
}
if (values['base-url']) {
  process.stdout.write(describeWorld(await seedDemo(values['base-url'])));
  process.exit(0);
}
const config = loadConfig({ DATA_DIR: './data-demo', ...process.env });
const store = await EmbeddedStore.open({ dir: config.dataDir });
const app = createApp({ store, clock: systemClock, config, log: createLogger('warn') });
const server = createServer(app.callback());
app.jobs.relay.attach(server);
await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
const baseUrl = `http://${config.host}:${config.port}`;
app.addOrigin(baseUrl);
app.jobs.scheduler.start();
app.jobs.dispatcher.start();
process.stdout.write(describeWorld(await seedDemo(baseUrl)));
process.stdout.write('\nThe server keeps running; Ctrl-C stops it.\n');
const stop = async () => {
  app.jobs.scheduler.stop();
  await app.jobs.dispatcher.stop();
  server.closeAllConnections();
  server.close();
  await store.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
