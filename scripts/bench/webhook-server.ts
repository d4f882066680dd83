// The server under test for bench:webhooks: the real app with its
// dispatcher running, embedded store in DIR. Answers "pending" on stdin with
// the number of deliveries not yet closed, so the bench can time a drain.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { createApp } from '../../server/app.js';
import { systemClock } from '../../server/clock.js';
import { loadConfig } from '../../server/config.js';
import { EmbeddedStore } from '../../server/store/embedded/embedded-store.js';

const [dir] = process.argv.slice(2);
if (!dir) {
  process.stderr.write('usage: webhook-server DIR\n');
  process.exit(2);
}
const store = await EmbeddedStore.open({ dir });
// Event loop delay and GC pauses while draining, reported on "stats".
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();
const gcPauses: number[] = [];
new PerformanceObserver((list) => gcPauses.push(...list.getEntries().map((entry) => entry.duration))).observe({
  entryTypes: ['gc'],
});
const app = createApp({
  store,
  clock: systemClock,
  config: { ...loadConfig(process.env), dataDir: dir, logLevel: 'silent', scryptCost: 1024 },
});
const server = createServer(app.callback());
app.jobs.relay.attach(server);
server.listen(0, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app.addOrigin(url);
  app.jobs.dispatcher.start(50);
  process.stdout.write(`port ${(server.address() as AddressInfo).port}\n`);
});
createInterface({ input: process.stdin }).on('line', async (line) => {
  const command = line.trim();
  if (command === 'pending') process.stdout.write(`pending ${await store.count('deliveries')}\n`);
  if (command === 'pause') app.jobs.dispatcher.pause();
  if (command === 'resume') {
    loopDelay.reset();
    gcPauses.length = 0;
    app.jobs.dispatcher.resume();
  }
  if (command === 'stats') {
    const ms = (ns: number) => (ns / 1e6).toFixed(1);
    const gcMax = Math.max(0, ...gcPauses).toFixed(1);
    process.stderr.write(
      `server event loop delay p50 ${ms(loopDelay.percentile(50))} p99 ${ms(loopDelay.percentile(99))} max ${ms(loopDelay.max)} ms; gc pauses ${gcPauses.length}, max ${gcMax} ms\n`,
    );
  }
});
process.on('SIGTERM', () => process.exit(0));
