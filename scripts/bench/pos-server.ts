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
import { EmbeddedStore } from '../../server/store/embedded/embedded-store.js';
import { PgStore } from '../../server/store/postgres/pg-store.js';
import type { Store } from '../../server/store/store.js';
import type { TerminalRecord } from '../../server/terminals/terminal.js';
import { PosSignature } from '../../server/terminals/pos-signatures.js';

const [dir, mode] = process.argv.slice(2);
if (!dir) {
  process.stderr.write('usage: pos-server DIR [--unsigned]\n');
  process.exit(2);
}
const onPostgres = /^postgres(ql)?:\/\//.test(dir);
const store: Store = onPostgres
  ? await PgStore.open({ connectionString: dir, max: 20 })
  : await EmbeddedStore.open({ dir });
/** The terminal as the store has it, taken on trust: a signature already claimed, so writes go to the store as they are. */
const trustSerial: Middleware<AppState> = async (ctx, next) => {
  const serial = ctx.params.serialNumber ?? '';
  const terminal = await store.get<TerminalRecord>('terminals', serial);
  const account = terminal && (await store.get<Account>('accounts', terminal.account_id));
  if (!terminal || !account) throw new Error('unknown terminal');
  const now = Date.now();
  const trusted = new PosSignature(
    { key: serial, serial, signedAt: now, expiresAt: now, now },
    { terminal, account },
    () => true,
  );
  trusted.begin();
  ctx.state.signature = trusted;
  ctx.state.account = account;
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
