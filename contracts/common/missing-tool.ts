// One rule for tests that need a tool from outside npm (Chromium, socat,
// PostgreSQL, curl): outside CI such a test is skipped and says what to
// install; under CI=true (where .ci/run installs every one) it runs, and
// so fails loudly when the tool is missing, rather than passing by skipping.

/** Why a test cannot run here (the tool is missing, not under CI), or false when it runs. */
export function missingTool(tool: string, present: () => boolean, install: string): string | false {
  if (process.env.CI) return false;
  return present() ? false : `${tool} is not installed: ${install}`;
}
