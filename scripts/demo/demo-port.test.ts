import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import t from 'tap';

// npm run demo where npm start already serves (the README's order): one
// line that says what is in the way and what to do, exit 1, no stack trace.

t.test('the demo on a port in use says so in one line, with what to do instead', async (t) => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.teardown(() => taken.close());
  const port = (taken.address() as AddressInfo).port;
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./cli.ts', import.meta.url))], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: t.testdir() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise((resolve) => child.on('close', resolve));
  t.equal(code, 1);
  t.match(
    stderr,
    new RegExp(
      `^demo: cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use\\. Is a server already running there \\(npm start\\)\\? Seed it instead: svc-demo --base-url http://127\\.0\\.0\\.1:${port}`,
    ),
  );
  t.equal(stderr.trim().split('\n').length, 1, 'one line');
  t.notMatch(stderr, /\n\s+at /, 'no stack trace');
});
