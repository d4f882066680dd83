// The server under test for bench:pos: the real app on the embedded store in
// DIR (or on PostgreSQL when DIR is a postgresql:// URL), system clock, no logging. With --unsigned, the POS signature check of
// the terminal routes is replaced by a plain lookup of the terminal, so the
// cost of signing can be measured on the same route.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Middleware } from 'koa';
import { createApp } from '../../server/app.js';
import type { Account } from '../../server/accounts/account.js';
import { systemClock } from '../../server/clock.js';
import { defaultConfig } from '../../server/config.js';
import type { AppState } from '../../server/http/context.js';
import { EmbeddedStore } from '../../server/store/embedded-store.js';
import { PgStore } from '../../server/store/pg-store.js';
import type { Store } from '../../server/store/store.js';
import type { TerminalRecord } from '../../server/terminals/terminal.js';

const [dir, mode] = process.argv.slice(2);
if (!dir) {
  process.stderr.write('usage: pos-server DIR [--unsigned]\n');
  process.exit(2);
}
const onPostgres = /^postgres(ql)?:\/\//.test(dir);
const store: Store = onPostgres
  ? await PgStore.open({ connectionString: dir, max: 20 })
  : await EmbeddedStore.open({ dir });
const trustSerial: Middleware<AppState> = async (ctx, next) => {
  const terminal = await store.get<TerminalRecord>('terminals', ctx.params.serialNumber ?? '');
  if (!terminal) throw new Error('unknown terminal');
  ctx.state.terminal = terminal;
  ctx.state.account = await store.get<Account>('accounts', terminal.account_id);
  await next();
};
const app = createApp({
  store,
  sharing: onPostgres ? 'instances' : 'one-process',
  clock: systemClock,
  config: { ...defaultConfig, dataDir: dir, logLevel: 'silent', scryptCost: 1024 },
  ...(mode === '--unsigned' ? { securityGuards: { posSignature: trustSerial } } : {}),
});
const server = createServer(app.callback()).listen(0, '127.0.0.1', () => {
  process.stdout.write(`port ${(server.address() as AddressInfo).port}\n`);
});
// Exit (rather than die) on SIGTERM, so --cpu-prof can write its profile.
process.on('SIGTERM', () => process.exit(0));
