import t from 'tap';
import { runSuite } from '../../contracts/suite/run-suite.js';
import { createApp } from '../app.js';
import { systemClock } from '../clock.js';
import { defaultConfig } from '../config.js';
import { EmbeddedStore } from '../store/embedded/embedded-store.js';
import { startApp } from './lifecycle.js';
import { originsOf } from './serve.js';

// A server listening on a wildcard (HOST=0.0.0.0, as in the image) is
// reached at the loopback and at each of its interfaces: each is one of its
// own origins, so a webhook to its own default receivers at 127.0.0.1 goes
// by loopback, not through the relay (the image's contract run found it).

t.test('the origins of a listening address', async (t) => {
  const interfaces = {
    lo: [
      { address: '127.0.0.1', family: 'IPv4' },
      { address: '::1', family: 'IPv6' },
    ],
    eth0: [
      { address: '172.17.0.2', family: 'IPv4' },
      { address: 'fe80::1%eth0', family: 'IPv6' },
    ],
  } as unknown as ReturnType<typeof import('node:os').networkInterfaces>;
  t.same(originsOf('127.0.0.1', 3000, interfaces), ['http://127.0.0.1:3000', 'http://localhost:3000']);
  t.same(originsOf('192.0.2.7', 3000, interfaces), ['http://192.0.2.7:3000']);
  t.same(originsOf('0.0.0.0', 3000, interfaces), [
    'http://127.0.0.1:3000',
    'http://localhost:3000',
    'http://172.17.0.2:3000',
  ]);
  t.same(originsOf('::', 3000, interfaces), [
    'http://127.0.0.1:3000',
    'http://localhost:3000',
    'http://[::1]:3000',
    'http://172.17.0.2:3000',
    'http://[fe80::1]:3000',
  ]);
});

t.test('a server on 0.0.0.0 delivers to its own receivers at 127.0.0.1 by loopback', async (t) => {
  const dir = t.testdir();
  const store = await EmbeddedStore.open({ dir });
  const config = { ...defaultConfig, dataDir: dir, port: 0, scryptCost: 1024, logLevel: 'silent' as const };
  const app = createApp({ store, clock: systemClock, config });
  const started = await startApp(app, store, { host: '0.0.0.0', port: 0, graceMs: 0 });
  t.teardown(() => started.stop());
  const port = new URL(started.baseUrl).port;
  const result = await runSuite({
    baseUrl: `http://127.0.0.1:${port}`,
    allowMutations: true,
    checks: ['webhooks.relay-rules', 'webhooks.captura'],
  });
  t.same(
    result.failures.map((failure) => failure.expected),
    [],
    'loopback routing for its own receivers, and their deliveries',
  );
});
