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

/** The sizes every page is checked at: a phone, a laptop, a desktop. */
export const SIZES = [[390, 844], [1440, 900], [1920, 1080]];

/** axe's violations and a sideways scroll on the page as it is, each a failure naming `label`; the count. */
async function checkLook(page, label, fail) {
  const violations = await axeViolations(page);
  if (violations.length) fail(`${label}: axe: ${violations.map((v) => `${v.id} ${v.first}`).join(', ')}`);
  if (await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth)) fail(`${label}: the page scrolls sideways`);
  return violations.length;
}

/**
 * `url` at 390, 1440 and 1920 px, light and dark, once `ready` (a selector) shows: axe's violations
 * and any sideways scroll are failures. Returns the violations' count by size and scheme.
 */
export async function axeAtSizes(browser, url, ready, fail) {
  const counts = {};
  for (const [width, height] of SIZES) {
    for (const scheme of ['light', 'dark']) {
      const look = await browser.newPage({ viewport: { width, height }, colorScheme: scheme });
      await look.goto(url, { waitUntil: 'load' });
      // A fresh page reads the run and its step's log first: under a loaded machine (a CI run's test
      // projects side by side on two cores) that took longer than 15 s once.
      await look.locator(ready).first().waitFor({ timeout: 60_000 });
      counts[`${width}-${scheme}`] = await checkLook(look, `${width} ${scheme}`, fail);
      await look.close();
    }
  }
  return counts;
}

/**
 * The page in the state a script brought it to (a field marked, a view chosen) — states an address
 * cannot open — resized to 390, 1440 and 1920 px, light and dark: axe's violations and any sideways
 * scroll are failures naming `what`. The page gets its size back, and the system's scheme. Returns
 * the violations' count by size and scheme.
 */
export async function axeEverySize(page, what, fail) {
  const before = page.viewportSize();
  const counts = {};
  for (const [width, height] of SIZES) {
    await page.setViewportSize({ width, height });
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
      counts[`${width}-${scheme}`] = await checkLook(page, `${what} at ${width} ${scheme}`, fail);
    }
  }

  await page.emulateMedia({ colorScheme: null });
  if (before) await page.setViewportSize(before);
  return counts;
}
