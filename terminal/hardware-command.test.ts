import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';

// The hardware check has a command of its own (npm run test:hardware: the
// one file, not the whole suite), and without a port it says which to give.

const root = fileURLToPath(new URL('..', import.meta.url));

t.test('npm run test:hardware without TERMINAL_TEST_PORT fails, naming it', async (t) => {
  const { TERMINAL_TEST_PORT: _unset, ...env } = process.env;
  const ran = await promisify(execFile)('npm', ['run', '--silent', 'test:hardware'], { cwd: root, env }).catch(
    (error: { code?: number; stdout?: string }) => error,
  );
  t.not((ran as { code?: number }).code ?? 0, 0, 'a failure, not a skip');
  t.match(ran.stdout, /set TERMINAL_TEST_PORT to a serial port with a terminal attached/);
  t.match(ran.stdout, /terminal\/hardware\.test\.ts/);
  t.notMatch(ran.stdout, /server\/|contracts\//, 'the one file, not the suite');
});
