#!/usr/bin/env node
// svc-demo (npm run demo --) [--base-url URL]
import { createApp } from '../../server/app.js';
import { startApp } from '../../server/http/lifecycle.js';
import { systemClock } from '../../server/clock.js';
import { loadConfig } from '../../server/config.js';
import { createLogger } from '../../server/log.js';
import { EmbeddedStore } from '../../server/store/embedded/embedded-store.js';
import { commandLine } from '../cli-args.js';
import { describeWorld, seedDemo } from './seed.js';
import { exitUnlessAnswering } from '../../contracts/cli/no-answer.js';
import { onStopRequest } from '../../contracts/cli/stop-signals.js';

const usage = `usage: svc-demo [--base-url URL]

Seeds a demo world (an account, terminals, orders in every state,
settlements, payment sessions in every status with split receivers) and
prints the URLs to open and the tokens to use. Without --base-url it starts
a server on PORT (3000) with its data in DATA_DIR (./data-demo) and keeps it
running; stop it with Ctrl-C. (In a checkout, npm run demo -- … runs the same.)

Exit status: 0 seeded, 1 the server refused a step, 2 a usage error, 3 the
server at --base-url does not answer.
`;
const { values } = commandLine('svc-demo', usage, { 'base-url': { type: 'string' } });
if (values['base-url']) {
  await exitUnlessAnswering('svc-demo', values['base-url']);
  process.stdout.write(describeWorld(await seedDemo(values['base-url'])));
  process.exit(0);
}
const config = loadConfig({ DATA_DIR: './data-demo', ...process.env });
const store = await EmbeddedStore.open({ dir: config.dataDir });
const app = createApp({ store, clock: systemClock, config, log: createLogger('warn') });
const started = await startApp(app, store, {
  host: config.host,
  port: config.port,
  onError: (error) => {
    const taken = error.code === 'EADDRINUSE';
    process.stderr.write(
      `demo: cannot listen on ${config.host}:${config.port}: ${taken ? 'the port is in use' : (error.code ?? error.message)}.${taken ? ` Is a server already running there (npm start)? Seed it instead: svc-demo --base-url http://${config.host}:${config.port}, or start the demo on another port: PORT=3001 svc-demo` : ''}\n`,
    );
    process.exit(1);
  },
});
process.stdout.write(describeWorld(await seedDemo(started.baseUrl)));
process.stdout.write('\nThe server keeps running; Ctrl-C stops it.\n');
const stop = async () => {
  await started.stop();
  process.exit(0);
};
onStopRequest(() => void stop());
