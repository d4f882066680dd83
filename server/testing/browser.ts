import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { missingTool } from '../../contracts/common/missing-tool.js';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Why browser tests cannot run here, or false when they can. Under CI
 * (CI=true, where .ci/run installs chromium) they always run, and so fail
 * when the browser is missing; elsewhere they are skipped with this reason.
 */
export function browserSkip(): string | false {
  return missingTool(
    `Chromium (${executablePath})`,
    () => existsSync(executablePath),
    "install Debian's chromium package, or set CHROMIUM_PATH",
  );
}

/** Debian's headless Chromium driven by playwright-core, in a fresh profile removed afterwards. */
export async function openBrowser(t: Test, options: { javaScriptEnabled?: boolean } = {}): Promise<BrowserContext> {
  if (!existsSync(executablePath))
    throw new Error(`no Chromium at ${executablePath}; .ci/run installs Debian's chromium package`);
  const profile = await mkdtemp(join(tmpdir(), 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    ...(options.javaScriptEnabled === false ? { javaScriptEnabled: false } : {}),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  t.teardown(async () => {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  });
  return context;
}

/** axe-core's whole default rule set (WCAG 2 A/AA and its best practices) run in the page: answers each violation as "rule: how many nodes (first target)". */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            context: Document,
            options: unknown,
          ) => Promise<{ violations: Array<{ id: string; nodes: Array<{ target: string[] }> }> }>;
        };
      }
    ).axe;
    return axe.run(document, {});
  });
  return result.violations.map((v) => `${v.id}: ${v.nodes.length} (${v.nodes[0]?.target.join(' ')})`);
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Words (runs of two or more letters) inside `selector` that the page breaks across two lines: none should be, at any width. */
export async function wordsSplitAcrossLines(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((within) => {
    const split: string[] = [];
    for (const element of document.querySelectorAll(within)) {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const match of (node.textContent ?? '').matchAll(/\p{L}{2,}/gu)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const lines = new Set(
            [...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)),
          );
          if (lines.size > 1) split.push(match[0]);
        }
      }
    }
    return split;
  }, selector);
}
