import { existsSync, readFileSync } from 'node:fs';
import t from 'tap';
// @ts-expect-error: a plain ES module script, typed by use
import { LONG_FILE_LINES, structureFigures } from './structure.mjs';

const root = new URL('..', import.meta.url);

interface Figures {
  long: Array<{ file: string; lines: number }>;
  pages: Array<{ page: string; bytes: number; budget: number }>;
}

t.test('at most 3 source files over 300 lines, and the first pages within their budgets', (t) => {
  const figures = structureFigures() as Figures;
  t.ok(
    figures.long.length <= 3,
    `${figures.long.length} source files over ${LONG_FILE_LINES as number} lines: ${figures.long.map((f) => `${f.file} ${f.lines}`).join(', ')}`,
  );
  for (const { page, bytes, budget } of figures.pages) t.ok(bytes <= budget, `${page}: ${bytes} bytes of ${budget}`);
  t.end();
});

t.test("CONTRIBUTING.md's commands are the project's own: each runs in a clone", (t) => {
  const text = readFileSync(new URL('CONTRIBUTING.md', root), 'utf8');
  const scripts = (
    JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: Record<string, string> }
  ).scripts;
  const commands = [...text.matchAll(/`((?:npm|node|npx) [^`]+)`|^((?:npm|node|npx) \S.*?)(?:\s+#.*)?$/gm)].map((m) =>
    (m[1] ?? m[2])!.trim(),
  );
  t.ok(commands.length >= 5, `${commands.length} commands found`);
  for (const command of commands) {
    const [tool, first, second] = command.split(/\s+/);
    if (tool === 'npm' && first === 'run') t.ok(scripts[second!], `${command}: a script of package.json`);
    else if (tool === 'npm') t.ok(['test', 'ci', 'start'].includes(first!), `${command}: an npm command`);
    else if (tool === 'node') {
      t.notMatch(first, /^\.\.\//, `${command}: nothing outside the repository`);
      t.ok(existsSync(new URL(first!, root)), `${command}: ${first} is in the repository`);
    }
  }
  t.end();
});
