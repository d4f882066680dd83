import t from 'tap';
import { startTestServer } from '../../server/testing/test-server.js';
import { startMutatingProxy } from '../testing/mutating-proxy.js';
import { conformingVariant, mutations, openChoicesVariant } from '../testing/mutations.js';
import { describeFailure } from './expectations.js';
import { runSuite, type SuiteOptions } from './run-suite.js';
import { suiteFailed } from './suite-report.js';

// The suite's own strength: our app behind a proxy that breaks one rule of
// the interface at a time. Run in the `interface` profile (as against
// another implementation), the suite must catch every one, through the
// check named for it. Checks are independent (each makes its own
// accounts), so each broken rule is run against the checks of its area
// only, which keeps this test short; the whole suite against each proxy
// catches the same (43 of 43, 80 s for the 43 whole runs, 4 at a time).
// The unbroken app passes every check through the same proxy.

t.setTimeout(180_000);

const behavioural: Pick<SuiteOptions, 'excludeChecks' | 'profile' | 'allowMutations'> = {
  allowMutations: true,
  profile: 'interface',
  excludeChecks: ['document.scenarios', 'document.negatives', 'document.rate-brake'],
};
const areaOf = (checkId: string) => checkId.split('.')[0]!;

t.test(
  `the interface profile catches each of ${mutations.length} rules broken one at a time; the unbroken app passes`,
  async (t) => {
    t.ok(mutations.length >= 25, `${mutations.length} mutations`);
    const server = await startTestServer(t);
    server.clock.set(Date.now()); // the suite signs POS requests with the real time

    const clean = await startMutatingProxy(server.baseUrl);
    t.teardown(clean.close);
    const unbroken = await runSuite({ baseUrl: clean.baseUrl, ...behavioural });
    t.same(
      [
        ...unbroken.failures.map(describeFailure),
        ...unbroken.violations.map((v) => `${v.operation} ${v.status} ${v.pointer}: ${v.expected}, got ${v.got}`),
      ],
      [],
      'through a proxy that changes nothing, every check holds',
    );

    const results: Array<{ name: string; caughtBy: string; failed: boolean; checks: string[]; seconds: number }> = [];
    const queue = [...mutations];
    const worker = async () => {
      for (let mutation = queue.shift(); mutation; mutation = queue.shift()) {
        const proxy = await startMutatingProxy(server.baseUrl, mutation);
        const started = performance.now();
        try {
          const result = await runSuite({
            baseUrl: proxy.baseUrl,
            ...behavioural,
            checks: [areaOf(mutation.caughtBy)],
          });
          results.push({
            name: mutation.name,
            caughtBy: mutation.caughtBy,
            failed: suiteFailed(result),
            checks: [...new Set(result.failures.map((f) => f.check))],
            seconds: (performance.now() - started) / 1000,
          });
        } finally {
          await proxy.close();
        }
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    for (const result of results) {
      t.ok(
        result.failed && result.checks.includes(result.caughtBy),
        `${result.name}: caught by ${result.caughtBy} (failed: ${result.checks.join(', ') || 'none'}; ${result.seconds.toFixed(1)} s)`,
      );
    }
    const caught = results.filter((r) => r.failed).length;
    t.comment(`${caught} of ${results.length} broken rules caught`);
  },
);

t.test(
  'an implementation that conforms but makes other choices passes the interface profile, whole, and fails the strict one',
  async (t) => {
    const server = await startTestServer(t);
    server.clock.set(Date.now());
    const variant = await startMutatingProxy(server.baseUrl, conformingVariant);
    t.teardown(variant.close);
    const loose = await runSuite({ baseUrl: variant.baseUrl, allowMutations: true, profile: 'interface' });
    t.same(
      loose.violations.map((v) => `${v.operation} ${v.status} ${v.pointer}: expected ${v.expected}, got ${v.got}`),
      [],
      'interface: no violation',
    );
    t.same(loose.failures.map(describeFailure), [], 'interface: every check holds');
    const strict = await runSuite({ baseUrl: variant.baseUrl, allowMutations: true, profile: 'strict' });
    t.ok(strict.violations.length > 0, `strict: ${strict.violations.length} violations (its own choices)`);
    t.ok(
      strict.failures.some((f) => f.check === 'document.served'),
      'strict: the served document is not ours',
    );
  },
);

t.test(
  'an implementation taking every choice the interface leaves open the other way passes the interface profile whole',
  async (t) => {
    const server = await startTestServer(t);
    server.clock.set(Date.now());
    const variant = await startMutatingProxy(server.baseUrl, openChoicesVariant);
    t.teardown(variant.close);
    const loose = await runSuite({ baseUrl: variant.baseUrl, allowMutations: true, profile: 'interface' });
    t.same(
      loose.violations.map((v) => `${v.operation} ${v.status} ${v.pointer}: expected ${v.expected}, got ${v.got}`),
      [],
      'interface: no violation',
    );
    t.same(loose.failures.map(describeFailure), [], 'interface: every check holds');
    const strict = await runSuite({ baseUrl: variant.baseUrl, allowMutations: true, profile: 'strict' });
    t.ok(
      strict.failures.length + strict.violations.length > 0,
      `strict: ${strict.failures.length} failed expectations and ${strict.violations.length} violations (ours are other choices)`,
    );
  },
);

t.test(
  'a served document whose references do not resolve is one failed expectation naming the reference, never a crash',
  async (t) => {
    const server = await startTestServer(t);
    server.clock.set(Date.now());
    const unresolved = 'https://elsewhere.example/schemas/Error';
    const variant = await startMutatingProxy(server.baseUrl, {
      name: 'a served document with a reference nothing resolves',
      caughtBy: 'document.served',
      answer: (request, answer) => {
        if (request.url.pathname !== '/openapi.json') return;
        answer.text = answer.text.replaceAll('"#/components/schemas/Error"', JSON.stringify(unresolved));
      },
    });
    t.teardown(variant.close);
    const result = await runSuite({
      baseUrl: variant.baseUrl,
      allowMutations: false,
      profile: 'interface',
      checks: ['document.read-only', 'document.served'],
    });
    const served = result.failures.filter((failure) => failure.check === 'document.served');
    t.equal(served.length, 1, 'one failed expectation');
    t.match(
      describeFailure(served[0]!),
      /a document whose schemas compile.*elsewhere\.example\/schemas\/Error/s,
      'naming the reference it could not resolve',
    );
  },
);
