// JUnit XML, as CI systems read it: the escape and the document frame both
// reports of svc-contracts write (the suite's and the receiver grader's).

/** Text for an attribute or element; drops the control characters XML 1.0 cannot hold. */
export const xml = (text: string) => text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/** One <testsuites> holding one <testsuite> of `cases` (already rendered <testcase> elements). */
export function junitDocument(frame: { name: string; suite: string; seconds: number; failures: number; skipped: number }, cases: readonly string[]): string {
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
