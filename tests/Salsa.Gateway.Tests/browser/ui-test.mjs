// The gateway's web UI in a real browser (Debian's Chromium through playwright-core): opens the
// console, starts a workflow with its Start button, follows the run it navigates to until the run
// ends, then checks what a person would look at — the state, the result image, the hop waterfall and
// the cluster table — saves a full-page screenshot and prints one JSON summary.
// With an API key, the gateway is expected to ask for it first: the key is typed into its dialog,
// and everything after (the stream, the images) must work with it.
// Usage: node ui-test.mjs <gateway url> <workflow> <timeout seconds> <screenshot.png> [kmax] [api key]
// Exits 0 when every check passed, 1 when one failed, 2 on bad arguments.
import { chromium } from 'playwright-core';

const [url, workflow, timeoutArg, screenshot, kmax, apiKey] = process.argv.slice(2);
const timeoutSeconds = Number(timeoutArg);
if (!url || !workflow || !(timeoutSeconds > 0) || !screenshot) {
  console.error('usage: node ui-test.mjs <gateway url> <workflow> <timeout seconds> <screenshot.png> [kmax]');
  process.exit(2);
}

const FINAL = ['succeeded', 'failed', 'cancelled', 'interrupted'];
const started = Date.now();
const summary = { ok: false, url, workflow, kmax: kmax ? Number(kmax) : null, runId: null, state: null, failures: [], pageErrors: [], consoleErrors: [], failedRequests: [] };
const fail = (message) => summary.failures.push(message);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  chromiumSandbox: false,
  args: ['--headless', '--no-sandbox'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  page.on('pageerror', (error) => summary.pageErrors.push(String(error)));
  page.on('console', (message) => { if (message.type() === 'error') summary.consoleErrors.push(message.text()); });
  page.on('response', (response) => {
    if (response.status() >= 400) summary.failedRequests.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });

  try {
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 30_000 });
    if (apiKey) {
      await page.locator('#key-dialog[open]').waitFor({ timeout: 30_000 });
      summary.askedForKey = (await page.locator('#key-reason').textContent())?.trim();
      await page.locator('#key-input').fill(apiKey);
      await page.locator('#key-form button[value="save"]').click();
      await page.locator('#key-dialog').waitFor({ state: 'hidden', timeout: 10_000 });
    }
    const card = page.locator(`#workflows [data-workflow="${workflow}"]`);
    await card.locator('button.start').waitFor({ state: 'visible', timeout: 30_000 });
    summary.workflows = await page.locator('#workflows [data-workflow]').evaluateAll((nodes) => nodes.map((n) => n.dataset.workflow));
    summary.dag = await card.locator('.dag').textContent().catch(() => null);
    if (kmax) await card.locator('input.kmax').fill(String(kmax));

    await card.locator('button.start').click();
    await page.waitForFunction(() => /^#\/runs\/[^/]+/.test(location.hash), null, { timeout: 30_000 });
    summary.runId = decodeURIComponent((await page.evaluate(() => location.hash)).replace(/^#\/runs\//, ''));
    await page.locator('#run-state').waitFor({ timeout: 30_000 });

    // While it runs: the page records, from its own DOM changes, whether it ever showed the run as
    // running; the test waits on the state reaching an end, not on a clock.
    await page.evaluate(() => {
      const state = document.querySelector('#run-state');
      window.__sawRunning = state.textContent.trim() === 'running';
      new MutationObserver(() => {
        const now = document.querySelector('#run-state');
        if (now && now.textContent.trim() === 'running') window.__sawRunning = true;
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    try {
      await page.waitForFunction((final) => final.includes(document.querySelector('#run-state')?.textContent.trim()),
        FINAL, { timeout: timeoutSeconds * 1000 });
    } catch (error) {
      fail(`the run did not end within ${timeoutSeconds} s: ${error.message.split('\n')[0]}`);
    }
    summary.state = (await page.locator('#run-state').textContent())?.trim();
    summary.sawRunning = await page.evaluate(() => window.__sawRunning === true);
    // The live charts count the progress events the stream brought.
    summary.progressEvents = await page.locator('#live svg.chart text.tick').evaluateAll((nodes) =>
      Math.max(0, ...nodes.map((n) => Number(/^(\d+) progress events$/.exec(n.textContent)?.[1] ?? 0))));
    summary.runSeconds = Math.round((Date.now() - started) / 100) / 10;
    if (summary.state !== 'succeeded') {
      fail(`#run-state reads "${summary.state}", not "succeeded"`);
      summary.runError = await page.locator('.run-header .alert').textContent().catch(() => null);
    }

    if (summary.state === 'succeeded') {
      // The result image: in the page and decoded.
      const image = page.locator('#result img');
      try {
        await image.waitFor({ timeout: 15_000 });
        // The element can be in the page before its source is set (an image without one counts as
        // complete): wait for a source, loaded and decoded.
        await page.waitForFunction(() => {
          const img = document.querySelector('#result img');
          return img && img.getAttribute('src') && img.complete && img.naturalWidth > 0;
        }, null, { timeout: 30_000 }).catch(() => {});
        summary.image = await image.evaluate((img) => ({ src: img.getAttribute('src'), naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight }));
        if (!(summary.image.naturalWidth > 0)) fail(`the result image ${summary.image.src} did not load (naturalWidth 0)`);
      } catch (error) {
        fail(`no result image: ${error.message.split('\n')[0]}`);
      }

      // The run as the API has it, to check the page against.
      const run = await page.evaluate(async ([id, key]) => (await fetch(`/api/runs/${encodeURIComponent(id)}`, { headers: key ? { 'X-Api-Key': key } : {} })).json(), [summary.runId, apiKey ?? null]);
      summary.api = { hops: run.hops?.length ?? 0, artifacts: (run.artifacts ?? []).map((a) => a.name), tables: (run.steps ?? []).filter((st) => Array.isArray(st.outputs?.table)).map((st) => st.id) };

      summary.hops = await page.locator('#waterfall svg rect.hop').count();
      if (summary.hops < 4) fail(`the waterfall shows ${summary.hops} hops (fewer than 4)`);
      if (summary.hops !== summary.api.hops) fail(`the waterfall shows ${summary.hops} hops, the run has ${summary.api.hops}`);
      summary.clusterRows = await page.locator('#clusters table tbody tr').count();
      if (summary.clusterRows < 1) fail('the cluster table has no rows');
      summary.tables = await page.locator('#clusters .table-box').evaluateAll((nodes) => nodes.map((n) => n.dataset.step));
      summary.artifactLinks = await page.locator('#result .artifacts a').count();
      if (summary.artifactLinks !== summary.api.artifacts.length) fail(`${summary.artifactLinks} artifact links for ${summary.api.artifacts.length} artifacts`);
      summary.runsListed = await page.locator(`#runs tr[data-run="${summary.runId}"]`).count();
      if (summary.runsListed !== 1) fail('the run is not in the runs list');
    }
  } catch (error) {
    fail(error.message.split('\n')[0]);
  }

  if (summary.pageErrors.length) fail(`uncaught errors in the page: ${summary.pageErrors.join('; ')}`);
  try {
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))); // the last frame painted
    await page.screenshot({ path: screenshot, fullPage: true });
    summary.screenshot = screenshot;
  } catch (error) {
    fail(`screenshot: ${error.message.split('\n')[0]}`);
  }
} finally {
  await browser.close();
}

summary.ok = summary.failures.length === 0;
summary.elapsedSeconds = Math.round((Date.now() - started) / 100) / 10;
console.log(JSON.stringify(summary, null, 2));
process.exit(summary.ok ? 0 : 1);
