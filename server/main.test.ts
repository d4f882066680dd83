import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { contractClient } from '../contracts/testing/contract-client.js';
import { postgresSkip, startPostgres } from './store/postgres/pg-testing.js';
import { startServerProcess, stopped } from './testing/server-process.js';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));

const startServer = (dataDir: string, env: Record<string, string> = {}) =>
  startServerProcess({ DATA_DIR: dataDir, ...env });

t.test('a 2xx from the real server survives kill -9', async (t) => {
  const dataDir = t.testdir();
  const first = await startServer(dataDir);
  const api = contractClient(first.baseUrl);
  const registered = await api.post('/console/register', {
    json: { email: 'durable@example.com', password: '12345678' },
  });
  t.equal(registered.status, 201);
  first.child.kill('SIGKILL');
  await stopped(first.child);

  const second = await startServer(dataDir);
  t.teardown(async () => {
    second.child.kill('SIGTERM');
    await stopped(second.child);
  });
  const again = contractClient(second.baseUrl);
  const login = await again.post('/api/svcpagos/login', {
    json: { email: 'durable@example.com', password: '12345678' },
  });
  t.equal(login.status, 200, 'the account registered before the kill is there');
  t.equal((await again.get('/control/clock', { token: registered.body.key.token })).status, 200);
});

t.test('a second server on the same DATA_DIR exits non-zero with a clear message', async (t) => {
  const dataDir = t.testdir();
  const first = await startServer(dataDir);
  t.teardown(async () => {
    first.child.kill('SIGTERM');
    await stopped(first.child);
  });
  const error = await startServer(dataDir).then(
    () => null,
    (e: { code: number; stderr: string }) => e,
  );
  t.ok(error, 'the second server did not start');
  t.equal(error!.code, 1);
  t.match(error!.stderr, /data directory .* is in use by another server process/);
});

t.test('SIGTERM stops the server cleanly and releases the directory', async (t) => {
  const dataDir = t.testdir();
  const first = await startServer(dataDir, { LOG_LEVEL: 'info' });
  first.child.kill('SIGTERM');
  await stopped(first.child);
  t.equal(first.child.exitCode, 0);
  const lines = first
    .stderr()
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { message: string }).message);
  t.same(lines.slice(-2), ['stopping', 'stopped'], 'the log says the stop began, and then that it ended');
  const second = await startServer(dataDir);
  second.child.kill('SIGTERM');
  await stopped(second.child);
});

t.test('a bad environment variable stops start-up with a message naming it', async (t) => {
  const child = spawn(process.execPath, ['--import', 'tsx', main], {
    env: { ...process.env, PORT: 'eighty', DATA_DIR: t.testdir() },
  });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  t.equal(code, 1);
  t.match(err, /PORT must be an integer/);
});

t.test(
  'with DATABASE_URL the server keeps its data in PostgreSQL, and a 2xx survives kill -9',
  { skip: postgresSkip() },
  async (t) => {
    const DATABASE_URL = startPostgres(t);
    const first = await startServer(t.testdir(), { DATABASE_URL });
    const api = contractClient(first.baseUrl);
    t.match((await api.get('/health')).body, { status: 'ok', store: 'postgres' });
    t.equal(
      (await api.post('/console/register', { json: { email: 'pg@example.com', password: '12345678' } })).status,
      201,
    );
    first.child.kill('SIGKILL');
    await stopped(first.child);
    const second = await startServer(t.testdir(), { DATABASE_URL });
    t.teardown(async () => {
      second.child.kill('SIGTERM');
      await stopped(second.child);
    });
    const login = await contractClient(second.baseUrl).post('/api/svcpagos/login', {
      json: { email: 'pg@example.com', password: '12345678' },
    });
    t.equal(login.status, 200, 'the account is there after the kill');
  },
);

t.test('a bad DATABASE_URL stops start-up with a message', async (t) => {
  const error = await startServer(t.testdir(), { DATABASE_URL: 'mysql://nope' }).then(
    () => null,
    (e: { code: number; stderr: string }) => e,
  );
  t.equal(error!.code, 1);
  t.match(error!.stderr, /DATABASE_URL must be a postgres/);
});
