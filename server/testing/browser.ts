import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { chromium, type BrowserContext } from 'playwright-core';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Why browser tests cannot run here, or false when they can. Under CI
 * (CI=true, where .ci/run installs chromium) they always run, and so fail
 * when the browser is missing; elsewhere they are skipped with this reason.
 */
export function browserSkip(): string | false {
  if (process.env.CI || existsSync(executablePath)) return false;
  return `no Chromium at ${executablePath}: install Debian's chromium package (or set CHROMIUM_PATH)`;
}

/** Debian's headless Chromium driven by playwright-core, in a fresh profile removed afterwards. */
export async function openBrowser(t: Test): Promise<BrowserContext> {
  if (!existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath}; .ci/run installs Debian's chromium package`);
  const profile = await mkdtemp(join(tmpdir(), 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  t.teardown(async () => {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  });
  return context;
}
