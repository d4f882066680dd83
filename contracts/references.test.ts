import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

// What the product cites, it ships: every `INTERFACE.md §N` names a section
// of contracts/INTERFACE.md, every relative link of a Markdown page reaches
// a file of the repository (and a heading of it, with an anchor), and no
// file cites the documents the project was specified from, which do not
// ship with it ("the addendum", "the spec", their file names).

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
  .split('\0')
  .filter((file) => /\.(ts|mjs|cjs|md|json|ya?ml|html)$/.test(file) && existsSync(join(root, file)));
const read = (file: string) => readFileSync(join(root, file), 'utf8');

/** GitHub's anchor for a heading: lower case, punctuation out, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
const headings = (file: string) =>
  [...read(file).matchAll(/^#{1,6} (.+)$/gm)].map((match) => match[1]!.replace(/`/g, ''));

const sections = new Set(
  headings('contracts/INTERFACE.md')
    .map((heading) => /^(\d+)\. /.exec(heading)?.[1])
    .filter((number): number is string => number !== undefined),
);

t.test('INTERFACE.md has its sections numbered, 0 to 9', async (t) => {
  t.same([...sections], ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
});

t.test('every INTERFACE.md §N cited names a section there', async (t) => {
  const dangling: string[] = [];
  let cited = 0;
  for (const file of tracked) {
    // "INTERFACE.md §3", "INTERFACE.md §0, §2", "INTERFACE.md §5–§8", "INTERFACE.md §1 to §4"; § may be \u00a7 in JSON.
    for (const match of read(file).matchAll(
      /INTERFACE\.md\s+((?:(?:§|\\u00a7)\d+(?:\.\d+)?(?:\s*(?:,|–|-|to|and)\s*)?)+)/g,
    )) {
      for (const number of match[1]!.matchAll(/(?:§|\\u00a7)(\d+)/g)) {
        cited += 1;
        if (!sections.has(number[1]!)) dangling.push(`${file}: ${match[0].trim()}`);
      }
    }
  }
  t.ok(cited > 150, `${cited} citations checked`);
  t.same(dangling, [], 'no citation of a section INTERFACE.md does not have');
});

t.test('no file cites a document the repository does not hold', async (t) => {
  const outside = (line: string) =>
    /\baddendum\b|interface-spec|\bthe spec\b|\bspec §/i.test(line) ||
    /\bspec:\s*[A-Za-z/]/.test(line.replace(/\bspec: (FieldSpec|string)\b/g, ''));
  const found = tracked
    .filter((file) => file !== 'contracts/references.test.ts')
    .flatMap((file) =>
      read(file)
        .split('\n')
        .map((line, index) => ({ line, index }))
        .filter(({ line }) => outside(line))
        .map(({ line, index }) => `${file}:${index + 1}: ${line.trim().slice(0, 120)}`),
    );
  t.same(found, []);
});

t.test('every relative link of a Markdown page reaches a file, and its anchor a heading', async (t) => {
  const broken: string[] = [];
  let links = 0;
  for (const file of tracked.filter((name) => name.endsWith('.md'))) {
    const text = read(file).replace(/```[\s\S]*?```/g, '');
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (/^[a-z]+:/i.test(target)) continue; // http:, https:, mailto:
      links += 1;
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const resolved = path ? join(dirname(file), path) : file;
      if (!existsSync(join(root, resolved))) {
        broken.push(`${file}: ${target} (no such file)`);
        continue;
      }
      if (anchor && resolved.endsWith('.md') && !headings(resolved).map(slug).includes(anchor))
        broken.push(`${file}: ${target} (no such heading)`);
    }
  }
  t.ok(links > 10, `${links} links checked`);
  t.same(broken, []);
});
