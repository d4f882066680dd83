import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const script = fileURLToPath(new URL('./test-tiers.mjs', import.meta.url));

t.test(
  'the tiers follow the imports: a process, a browser or a cluster anywhere below a test leaves the unit tier',
  async (t) => {
    const listed = spawnSync(process.execPath, [script, '--list'], { encoding: 'utf8' });
    t.equal(listed.status, 0, listed.stderr);
    const tier = new Map(
      listed.stdout
        .trim()
        .split('\n')
        .map((line) => [line.split(/\s+/)[1]!, line]),
    );
    t.match(tier.get('server/orders/orders.test.ts'), /^unit /, 'in process');
    t.match(
      tier.get('terminal/e2e.test.ts'),
      /^full .*starts another process \(terminal\/pty-pair\.ts\)/,
      'socat, through the pty pair',
    );
    t.match(tier.get('server/console/browser.test.ts'), /^full .*drives Chromium \(server\/testing\/browser\.ts\)/);
    t.match(tier.get('server/store/postgres/pg-store.test.ts'), /^full .*pg-testing\.ts/, 'a PostgreSQL cluster');
    t.match(tier.get('contracts/suite/mutations.test.ts'), /^full .*about 50 s/, 'too slow for the loop, and says so');
    t.match(tier.get('scripts/test-tiers.test.ts'), /^full /, 'this test runs the script');
    const help = spawnSync(process.execPath, [script, '--help'], { encoding: 'utf8' });
    t.equal(help.status, 0);
    t.match(help.stdout, /usage: node scripts\/test-tiers\.mjs/);
    t.equal(spawnSync(process.execPath, [script, 'nonsense'], { encoding: 'utf8' }).status, 2, 'a usage error');
  },
);
