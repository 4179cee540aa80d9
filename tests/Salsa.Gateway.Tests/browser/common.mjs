// What every browser script shares: Debian's Chromium through playwright-core, axe-core's WCAG 2.1
// AA verdict on a page, and the one JSON summary each script ends with.
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const axeSource = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** Headless Chromium (CHROMIUM, else Debian's), without the sandbox this machine cannot give it. */
export function launchChromium(extraArgs = []) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    chromiumSandbox: false,
    args: ['--headless', '--no-sandbox', ...extraArgs],
  });
}

/** The page's WCAG 2.1 A and AA violations as axe-core finds them: rule, impact, nodes, the first node. */
export async function axeViolations(page) {
  if (!(await page.evaluate(() => typeof window.axe !== 'undefined'))) await page.addScriptTag({ path: axeSource });
  const results = await page.evaluate(() => window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }));
  return results.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, first: v.nodes[0]?.target?.join(' '), summary: v.nodes[0]?.failureSummary?.split('\n').slice(0, 2).join(' ') }));
}

/** Prints the summary (ok when nothing failed) and exits 0, or 1 when a check failed. */
export function finish(summary) {
  summary.ok = summary.failures.length === 0;
  console.log(JSON.stringify(summary, null, 2));
  process.exit(summary.ok ? 0 : 1);
}

/** What a script begins with: its summary (failures first), fail() to add one, and Chromium. */
export async function begin(fields = {}) {
  const summary = { failures: [], ...fields };
  return { summary, fail: (message) => summary.failures.push(message), browser: await launchChromium() };
}

/**
 * `url` at 390, 1440 and 1920 px, light and dark, once `ready` (a selector) shows: axe's violations
 * and any sideways scroll are failures. Returns the violations' count by size and scheme.
 */
export async function axeAtSizes(browser, url, ready, fail) {
  const counts = {};
  for (const [width, height] of [[390, 844], [1440, 900], [1920, 1080]]) {
    for (const scheme of ['light', 'dark']) {
      const look = await browser.newPage({ viewport: { width, height }, colorScheme: scheme });
      await look.goto(url, { waitUntil: 'load' });
      await look.locator(ready).first().waitFor({ timeout: 15_000 });
      const violations = await axeViolations(look);
      counts[`${width}-${scheme}`] = violations.length;
      if (violations.length) fail(`${width} ${scheme}: axe: ${violations.map((v) => `${v.id} ${v.first}`).join(', ')}`);
      if (await look.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth)) fail(`${width} ${scheme}: the page scrolls sideways`);
      await look.close();
    }
  }
  return counts;
}
