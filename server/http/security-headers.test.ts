import { createHash } from 'node:crypto';
import t from 'tap';
import { loadConfig } from '../config.js';
import { merchantWithTerminal, startTestServer } from '../testing/test-server.js';
import { pagePolicy } from './security-headers.js';

// One middleware sets them on every kind of answer: JSON, errors, 404s, pages.

t.test(
  'every kind of answer: nosniff and no-store; pages also a CSP by hash, frame-ancestors and no Referer',
  async (t) => {
    const server = await startTestServer(t);
    const merchant = await merchantWithTerminal(server);
    const token = merchant.account.key.token;
    const agreement = (
      await server.api.post('/api/v1/ext/agreements', {
        json: { name: 'Shop', currency_reference: 'USD', split: false, payment_methods: ['transfer'] },
        token,
      })
    ).body;
    const session = (
      await server.api.post('/api/v1/ext/payment-sessions/buttons', {
        json: { agreement_id: agreement.agreement_id, amount_reference: 10 },
        token,
      })
    ).body;
    const answers = {
      'a JSON read': await server.api.get('/health'),
      'the document': await server.api.get('/openapi.json'),
      'an answer with a secret (the console keys)': await server.api.get('/console/keys', {
        token: merchant.account.console_token,
      }),
      'a 401': await server.api.get('/console/keys'),
      'a 400': await server.api.get('/console/trace?limit=0', { token: merchant.account.console_token }),
      'a 404 of no route': await server.api.get('/no/such/thing'),
      'the console page': await server.api.get('/console'),
      'the payment page': await server.api.get(`/pay/${session.session_id}`),
      'the landing page': await server.api.get('/'),
      'the fidelidad page': await server.api.get('/fidelidad', { headers: { accept: 'text/html' } }),
      // Last: a login rotates the console token.
      'a login': await server.api.post('/api/svcpagos/login', {
        json: { email: merchant.account.email, password: merchant.account.password },
      }),
    };
    for (const [what, answer] of Object.entries(answers)) {
      t.equal(answer.headers.get('x-content-type-options'), 'nosniff', `${what}: nosniff`);
      t.equal(answer.headers.get('cache-control'), 'no-store', `${what}: no-store`);
    }
    for (const what of ['the console page', 'the payment page'] as const) {
      const answer = answers[what];
      const policy = answer.headers.get('content-security-policy') ?? '';
      t.match(policy, /default-src 'none'/, `${what}: nothing from anywhere by default`);
      t.match(policy, /frame-ancestors 'self'/, `${what}: framed only by this origin`);
      t.match(policy, /form-action 'self'/);
      t.notMatch(policy, /unsafe-inline/, `${what}: no inline code but its own`);
      t.equal(answer.headers.get('referrer-policy'), 'no-referrer');
    }
    {
      // The payment page's script is a module of this origin (/pay/app.js), as the console's is.
      const answer = answers['the payment page'];
      const policy = answer.headers.get('content-security-policy') ?? '';
      t.match(answer.text, /<script type="module" src="\/pay\/app\.js"><\/script>/);
      t.notMatch(answer.text, /<script>/, 'no inline script');
      t.match(policy, /script-src 'self'(;|$)/, 'the payment page: scripts from its own origin only');
      const style = /<style>([\s\S]*?)<\/style>/.exec(answer.text)?.[1];
      t.ok(
        policy.includes(`'sha256-${createHash('sha256').update(style!).digest('base64')}'`),
        'its own inline style allowed by hash',
      );
    }
    {
      // The console's script is a module of this origin (/console/app.js), and nothing inline.
      const answer = answers['the console page'];
      const policy = answer.headers.get('content-security-policy') ?? '';
      t.match(answer.text, /<script type="module" src="\/console\/app\.js"><\/script>/);
      t.notMatch(answer.text, /<script>/, 'no inline script');
      t.match(policy, /script-src 'self'(;|$)/, 'the console page: scripts from its own origin only');
    }
    for (const what of ['the landing page', 'the fidelidad page'] as const) {
      const policy = answers[what].headers.get('content-security-policy') ?? '';
      const style = /<style>([\s\S]*?)<\/style>/.exec(answers[what].text)?.[1];
      t.match(policy, /script-src 'none'/, `${what}: no script at all`);
      t.ok(
        policy.includes(`'sha256-${createHash('sha256').update(style!).digest('base64')}'`),
        `${what}: its style allowed by hash`,
      );
    }
    t.equal(answers['a JSON read'].headers.get('content-security-policy'), null, 'no page policy on JSON');
  },
);

t.test('SIM_FRAME_ANCESTORS sets who may frame the pages, and refuses what could end the directive', async (t) => {
  const server = await startTestServer(t, { frameAncestors: "'self' https://shop.example" });
  t.match(
    (await server.api.get('/console')).headers.get('content-security-policy'),
    /frame-ancestors 'self' https:\/\/shop\.example(;|$)/,
  );
  t.equal(loadConfig({ SIM_FRAME_ANCESTORS: "'none'" }).frameAncestors, "'none'");
  t.throws(() => loadConfig({ SIM_FRAME_ANCESTORS: "'self'; script-src *" }), {
    message: /SIM_FRAME_ANCESTORS must be a CSP source list/,
  });
});

t.test('a page without inline code gets none allowed', async (t) => {
  t.match(pagePolicy('<p>hello</p>', "'self'"), /script-src 'none'; style-src 'none'/);
});
