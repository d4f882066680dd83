import { readFileSync } from 'node:fs';
import t from 'tap';
import { EXIT_NO_ANSWER } from '../contracts/cli/no-answer.js';
import {
  BridgeError,
  CliError,
  codeOf,
  hasCode,
  LineError,
  ProtocolError,
  TERMINAL_ERRORS,
  terminalError,
  type ErrorLayer,
  type TerminalErrorCode,
} from './errors.js';

// One table of codes, four types: each type takes only its layer's codes, and
// carries the row's facts plus what the thrower knew.

const typeOf: Record<ErrorLayer, new (code: never, message: string) => Error> = {
  protocol: ProtocolError,
  line: LineError,
  bridge: BridgeError,
  cli: CliError,
};

t.test('every code makes an error of its layer, with the facts of its row', async (t) => {
  for (const [code, row] of Object.entries(TERMINAL_ERRORS)) {
    t.match(code, /^[A-Z][A-Z_]+[A-Z]$/, `${code}: a stable code in capitals`);
    const error = new typeOf[row.layer](code as never, 'said');
    t.match(
      error,
      {
        name: typeOf[row.layer].name,
        code,
        layer: row.layer,
        message: 'said',
        retryable: row.retryable,
        disconnected: row.disconnected,
        exitCode: row.exit,
      },
      code,
    );
    t.equal(terminalError(error), error, `${code} is ours`);
    t.equal(codeOf(error), code);
    t.ok(hasCode(error, code as TerminalErrorCode));
  }
});

t.test('the facts a caller branches on', async (t) => {
  t.equal(new LineError('DISCONNECTED', 'x').disconnected, true, 'a closed line is gone');
  t.equal(
    new LineError('LINE_FAILED', 'x', { disconnected: false }).disconnected,
    false,
    'a thrower may say it is not',
  );
  t.equal(new LineError('LINK_TIMEOUT', 'x').retryable, true, 'a line can be reopened');
  t.equal(new LineError('TLS_REFUSED', 'x').retryable, false, 'a refused certificate stays refused');
  t.equal(new BridgeError('SERVER_UNAVAILABLE', 'x').retryable, true);
  t.equal(new BridgeError('SERVER_REFUSED', 'x').retryable, false, 'a refused signature is not mended by waiting');
  t.equal(new BridgeError('JOURNAL_FAILED', 'x').retryable, false, 'the bridge stops on it');
  t.equal(new CliError('USAGE', 'x').exitCode, 2);
  t.equal(new CliError('COMMAND_FAILED', 'x').exitCode, 1);
  t.equal(new CliError('UNREACHABLE', 'x').exitCode, EXIT_NO_ANSWER);
  t.equal(new BridgeError('JOURNAL_FAILED', 'x').exitCode, 1, 'a bridge that stopped on its journal exits 1');
  const refusal = new BridgeError('DEVICE_REFUSED', 'x', { dialect: 'nexo', httpStatus: 400, deviceCode: '6C' });
  t.match(refusal, { dialect: 'nexo', httpStatus: 400, deviceCode: '6C' });
  t.match(new ProtocolError('MESSAGE_INVALID', 'x', { field: 'amount' }), { field: 'amount' });
  t.match(new CliError('USAGE', 'x', { help: 'usage: …' }), { help: 'usage: …' });
  t.notOk('help' in new CliError('USAGE', 'x'), 'a fact not given is absent, not undefined');
  const cause = new Error('EISDIR');
  t.equal(new BridgeError('JOURNAL_FAILED', 'x', { cause }).cause, cause, 'the cause is kept');
  t.equal(new BridgeError('JOURNAL_FAILED', 'x').cause, undefined);
});

t.test('what is not ours has no code but UNEXPECTED', async (t) => {
  t.equal(terminalError(new Error('x')), undefined);
  t.equal(terminalError('x'), undefined);
  t.equal(codeOf(new TypeError('x')), 'UNEXPECTED');
  t.notOk(hasCode(new Error('x'), 'LINE_FAILED'));
  t.notOk(hasCode(Object.assign(new Error('x'), { code: 'LINE_FAILED' })), 'a code alone does not make it ours');
  t.notOk(hasCode(new LineError('NO_ANSWER', 'x'), 'LINK_TIMEOUT', 'NAK_LIMIT'));
  t.ok(hasCode(new LineError('NAK_LIMIT', 'x'), 'LINK_TIMEOUT', 'NAK_LIMIT'));
});

t.test("the terminal docs' table names every code with its meaning and exit", async (t) => {
  const readme = readFileSync(new URL('../docs/terminal/shared.md', import.meta.url), 'utf8');
  for (const [code, row] of Object.entries(TERMINAL_ERRORS)) {
    const retried = row.retryable ? 'yes' : 'no';
    t.ok(readme.includes(`| \`${code}\` | `), `${code} is in the table`);
    t.ok(readme.includes(`| ${row.means} | ${retried} | ${row.exit} |`), `${code}: as errors.ts says`);
  }
});
