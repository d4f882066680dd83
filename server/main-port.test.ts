import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import t from 'tap';

// A second `npm start` where one already serves: one line naming the port
// and what to do, exit 1, no stack trace.

t.test('the server on a port in use says so in one line', async (t) => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.teardown(() => taken.close());
  const port = (taken.address() as AddressInfo).port;
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./main.ts', import.meta.url))], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: t.testdir(), LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  t.equal(await new Promise((resolve) => child.on('close', resolve)), 1);
  t.equal(
    stderr,
    `svc-pos-sim: cannot listen on 127.0.0.1:${port}: the port is in use (another server, npm start or npm run demo?); set PORT to another\n`,
  );
});
