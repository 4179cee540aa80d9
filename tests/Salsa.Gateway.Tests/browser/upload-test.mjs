// The web UI's upload of a user's own file, in a real browser (Debian's Chromium through
// playwright-core): picks the file with the file picker, uploads it (a progress bar while it goes),
// reads what the page says — the dataset, the molecules refused — and, for a good file, starts the
// mashup on it with the page's button and follows the run to its end; for a bad file, reads the
// error the page shows. Prints one JSON summary.
// Usage: node upload-test.mjs <gateway url> <places|compounds> <file> <timeout seconds> <screenshot.png>
// Exits 0 when the page behaved (the caller checks the summary), 1 on a failure, 2 on bad arguments.
import { launchChromium, axeEverySize } from './common.mjs';

const [url, kind, file, timeoutArg, screenshot] = process.argv.slice(2);
const timeoutSeconds = Number(timeoutArg);
if (!url || !['places', 'compounds'].includes(kind) || !file || !(timeoutSeconds > 0) || !screenshot) {
  console.error('usage: node upload-test.mjs <gateway url> <places|compounds> <file> <timeout seconds> <screenshot.png>');
  process.exit(2);
}

const FINAL = ['succeeded', 'failed', 'cancelled', 'interrupted'];
const summary = { ok: false, kind, failures: [], pageErrors: [], uploadRequests: [] };

const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 }, deviceScaleFactor: 1 });
  page.on('pageerror', (error) => summary.pageErrors.push(String(error)));
  page.on('request', (request) => {
    if (request.url().includes('/api/uploads/')) summary.uploadRequests.push(`${request.method()} ${new URL(request.url()).pathname}`);
  });
  try {
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 30_000 });
    await page.locator('#upload-kind').selectOption(kind);
    await page.locator('#upload-file').setInputFiles(file);
    summary.namePlaceholder = await page.locator('#upload-name').getAttribute('placeholder');

    // The progress bar shows while the file goes up.
    await page.evaluate(() => {
      const progress = document.querySelector('#upload-progress');
      window.sawProgress = false;
      new MutationObserver(() => { if (!progress.hidden) window.sawProgress = true; }).observe(progress, { attributes: true });
    });
    await page.locator('#upload-button').click();
    await page.waitForFunction(() => {
      const result = document.querySelector('#upload-result');
      return result.querySelector('.upload-done') || result.classList.contains('error');
    }, null, { timeout: timeoutSeconds * 1000 });
    summary.sawProgress = await page.evaluate(() => window.sawProgress);
    summary.error = await page.locator('#upload-result.error').textContent().catch(() => null);
    summary.done = await page.locator('#upload-result .upload-done').textContent({ timeout: 1000 }).catch(() => null);
    summary.refused = await page.locator('#upload-result .refused li').allTextContents();
    summary.datasetId = await page.locator('#upload-result code').textContent({ timeout: 1000 }).catch(() => null);
    // The upload card with its result (or its errors): no WCAG 2.1 AA violation at 390, 1440 and 1920 px, light or dark.
    summary.axe = await axeEverySize(page, 'the upload card', (message) => summary.failures.push(message));

    if (summary.done) {
      await page.locator('#upload-result button.start-upload').click();
      await page.waitForFunction(() => /^#\/runs\/[^/]+/.test(location.hash), null, { timeout: 30_000 });
      summary.runId = decodeURIComponent((await page.evaluate(() => location.hash)).replace(/^#\/runs\//, ''));
      await page.waitForFunction((final) => final.includes(document.querySelector('#run-state')?.textContent?.trim()), FINAL, { timeout: timeoutSeconds * 1000 });
      summary.state = (await page.locator('#run-state').textContent())?.trim();
      // The result's images load after the run ends: wait for them (and the hits' drawings) to arrive.
      await page.waitForFunction(() => {
        const images = [...document.querySelectorAll('.result-figure img, td.depiction img')];
        return images.length > 0 && images.every((i) => i.complete && i.naturalWidth > 0);
      }, null, { timeout: 30_000 }).catch(() => {});
      const images = await page.locator('.result-figure img').evaluateAll((nodes) => nodes.map((n) => ({ src: n.getAttribute('src'), naturalWidth: n.naturalWidth })));
      summary.images = images;
      summary.depictions = await page.locator('td.depiction img').evaluateAll((nodes) => nodes.map((n) => n.naturalWidth));
    }
    summary.ok = true;
  } catch (error) {
    summary.failures.push(String(error));
  }
  await page.screenshot({ path: screenshot, fullPage: true }).catch(() => {});
} finally {
  await browser.close();
}
console.log(JSON.stringify(summary));
process.exit(summary.ok && summary.failures.length === 0 && summary.pageErrors.length === 0 ? 0 : 1);
