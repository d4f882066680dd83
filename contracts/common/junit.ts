// JUnit XML, as CI systems read it: the escape and the document frame both
// reports of svc-contracts write (the suite's and the receiver grader's).

/**
 * Characters XML 1.0 cannot hold (it allows tab, newline, carriage return,
 * U+0020–U+D7FF, U+E000–U+FFFD and the supplementary planes as pairs):
 * control characters, U+FFFE and U+FFFF, and surrogates not in a pair.
 */
const NOT_XML =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text for an attribute or element, whatever a receiver or server answered: what XML cannot hold becomes U+FFFD. */
export const xml = (text: string) =>
  text
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!)
    .replace(NOT_XML, '\ufffd');

/** One <testsuites> holding one <testsuite> of `cases` (already rendered <testcase> elements). */
export function junitDocument(
  frame: { name: string; suite: string; seconds: number; failures: number; skipped: number },
  cases: readonly string[],
): string {
  return junitSuites({ name: frame.name, seconds: frame.seconds }, [{ name: frame.suite, cases }]);
}

const failuresIn = (cases: readonly string[]) => cases.filter((c) => c.includes('<failure')).length;
const skippedIn = (cases: readonly string[]) => cases.filter((c) => c.includes('<skipped')).length;

/**
 * One <testsuites> holding a <testsuite> per part, each counting its own
 * cases, so a CI's view shows each part's number (the suite's checks apart
 * from the operation × status pairs its answers exercised).
 */
export function junitSuites(
  frame: { name: string; seconds: number },
  suites: ReadonlyArray<{ name: string; cases: readonly string[] }>,
): string {
  const time = frame.seconds.toFixed(3);
  const all = suites.flatMap((suite) => suite.cases);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(frame.name)}" tests="${all.length}" failures="${failuresIn(all)}" time="${time}">`,
    ...suites
      .filter((suite, index) => index === 0 || suite.cases.length > 0)
      .flatMap((suite, index) => [
        `  <testsuite name="${xml(suite.name)}" tests="${suite.cases.length}" failures="${failuresIn(suite.cases)}" errors="0" skipped="${skippedIn(suite.cases)}" time="${index === 0 ? time : '0.000'}">`,
        ...suite.cases,
        '  </testsuite>',
      ]),
    '</testsuites>',
    '',
  ].join('\n');
}
