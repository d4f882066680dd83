import t from 'tap';
import { API_TOKEN, readCredential, TERMINAL_SECRET, WEBHOOK_SECRET } from './credential.js';

const SECRET = 'a'.repeat(64);
const files: Record<string, string> = { '/s': `${SECRET}\n`, '/empty': '\n' };
const read = (path: string) => {
  if (path in files) return files[path]!;
  throw Object.assign(new Error('nope'), { code: 'ENOENT' });
};

t.test('a file first, then the variable, then the flag with a warning', async (t) => {
  t.same(readCredential(TERMINAL_SECRET, { file: '/s', env: {}, read }), { value: SECRET, warnings: [] });
  t.same(readCredential(TERMINAL_SECRET, { env: { SVC_TERMINAL_SECRET: `${SECRET} ` } }), {
    value: SECRET,
    warnings: [],
  });
  const flag = readCredential(TERMINAL_SECRET, { flag: SECRET, env: {} });
  t.match(flag, { value: SECRET, warnings: [/--secret is visible to every local user in ps/] });
  t.same(readCredential(TERMINAL_SECRET, { env: {} }), { value: undefined, warnings: [] }, 'none given');
});

t.test('two sources: the one used is said', async (t) => {
  const both = readCredential(TERMINAL_SECRET, {
    file: '/s',
    flag: 'b'.repeat(64),
    env: { SVC_TERMINAL_SECRET: 'c'.repeat(64) },
    read,
  });
  t.match(both, {
    value: SECRET,
    warnings: [
      "the terminal's secret is given by --secret-file and SVC_TERMINAL_SECRET and --secret; --secret-file is used",
    ],
  });
});

t.test('a former variable name is read, with a warning naming the current one', async (t) => {
  t.same(readCredential(API_TOKEN, { env: { SVC_API_TOKEN: 'sk_1' } }), {
    value: 'sk_1',
    warnings: ['SVC_API_TOKEN is an old name: use SVC_TOKEN'],
  });
  t.same(
    readCredential(API_TOKEN, { env: { SVC_API_TOKEN: 'sk_old', SVC_TOKEN: 'sk_new' } }),
    { value: 'sk_new', warnings: [] },
    'the current name wins',
  );
});

t.test(
  'a missing or empty file, an empty flag, or a secret of the wrong shape is refused before anything is sent',
  async (t) => {
    t.same(readCredential(TERMINAL_SECRET, { file: '/none', env: {}, read }), {
      error: '--secret-file /none: no such file',
    });
    t.same(readCredential(WEBHOOK_SECRET, { file: '/empty', env: {}, read }), {
      error: '--secret-file /empty is empty: it should hold the webhook secret',
    });
    t.same(readCredential(API_TOKEN, { flag: ' ', env: {} }), {
      error: '--token is empty: it should be the API token',
    });
    t.same(readCredential(WEBHOOK_SECRET, { env: { SVC_WEBHOOK_SECRET: ' ' } }), {
      error: 'SVC_WEBHOOK_SECRET is empty: it should hold the webhook secret',
    });
    t.same(readCredential(TERMINAL_SECRET, { flag: '00', env: {} }), {
      error:
        "the terminal's secret is 64 lowercase hex characters, as shown once at provisioning; what was given is not (2 characters)",
    });
    t.match(readCredential(TERMINAL_SECRET, { env: { SVC_TERMINAL_SECRET: SECRET.toUpperCase() } }), {
      error: /64 lowercase hex/,
    });
  },
);
