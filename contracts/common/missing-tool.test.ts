import t from 'tap';
import { missingTool } from './missing-tool.js';

t.test('a missing tool skips a test with what to install, outside CI only', async (t) => {
  const saved = process.env.CI;
  t.teardown(() => (saved === undefined ? delete process.env.CI : (process.env.CI = saved)));
  delete process.env.CI;
  t.equal(
    missingTool('socat', () => false, "install Debian's socat package"),
    "socat is not installed: install Debian's socat package",
  );
  t.equal(
    missingTool('socat', () => true, 'x'),
    false,
    'present: it runs',
  );
  process.env.CI = 'true';
  let asked = false;
  t.equal(
    missingTool('socat', () => ((asked = true), false), 'x'),
    false,
    'under CI it runs, and fails if the tool is missing',
  );
  t.notOk(asked, 'without even looking');
});
