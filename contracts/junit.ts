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
  const time = frame.seconds.toFixed(3);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(frame.name)}" tests="${cases.length}" failures="${frame.failures}" time="${time}">`,
    `  <testsuite name="${xml(frame.suite)}" tests="${cases.length}" failures="${frame.failures}" errors="0" skipped="${frame.skipped}" time="${time}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
