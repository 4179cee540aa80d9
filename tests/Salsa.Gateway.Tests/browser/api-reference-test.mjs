// A service's Scalar API reference in a real browser (Debian's Chromium through playwright-core):
// opens <url>/scalar, waits for Scalar to render an operation of the service's OpenAPI document (found
// by its summary) and the document's title on top of the page (not under a loading skeleton), checks
// that the page needed nothing beyond the service and raised no error, saves a screenshot and prints
// one JSON summary.
// Usage: node api-reference-test.mjs <service url> <operation summary> <screenshot.png>
// Exits 0 when every check passed, 1 when one failed, 2 on bad arguments.
import { launchChromium } from './common.mjs';

const [url, operation, screenshot] = process.argv.slice(2);
if (!url || !operation || !screenshot) {
  console.error('usage: node api-reference-test.mjs <service url> <operation summary> <screenshot.png>');
  process.exit(2);
}

const summary = { ok: false, url, operation, title: null, heading: null, operations: 0, failures: [], pageErrors: [], failedRequests: [], offOrigin: [] };
const fail = (message) => summary.failures.push(message);
const origin = new URL(url).origin;

const browser = await launchChromium(['--disable-background-networking', '--disable-component-update', '--no-first-run']);
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('pageerror', (error) => summary.pageErrors.push(String(error)));
  page.on('request', (request) => {
    const target = new URL(request.url());
    if (target.protocol.startsWith('http') && target.origin !== origin) summary.offOrigin.push(request.url());
  });
  page.on('response', (response) => {
    if (response.status() >= 400 && !response.url().endsWith('/favicon.ico')) summary.failedRequests.push(`${response.status()} ${response.url()}`);
  });

  await page.goto(`${url.replace(/\/$/, '')}/scalar`, { waitUntil: 'domcontentloaded', timeout: 30_000 });
  summary.title = await page.title();
  // Scalar renders each operation under its summary; wait for the one asked for.
  try {
    await page.getByText(operation, { exact: false }).first().waitFor({ state: 'visible', timeout: 60_000 });
  } catch (error) {
    fail(`the operation "${operation}" did not render: ${error.message.split('\n')[0]}`);
  }
  // The document's title heading is what a person sees: the topmost element at its centre is inside it.
  const heading = page.locator('h1').first();
  await heading.waitFor({ state: 'visible', timeout: 30_000 }).catch(() => {});
  summary.heading = await heading.textContent().catch(() => null);
  const onTop = await heading.evaluate((h) => {
    const box = h.getBoundingClientRect();
    const top = document.elementFromPoint(box.left + Math.min(box.width / 2, 40), box.top + box.height / 2);
    return !!top && h.contains(top);
  }).catch(() => false);
  if (!onTop) fail(`the title heading (${summary.heading}) is not what the page shows`);
  summary.operations = await page.getByText(/^(GET|POST|PUT|DELETE)$/).count();
  await page.screenshot({ path: screenshot, fullPage: false });

  if (summary.pageErrors.length) fail(`page errors: ${summary.pageErrors.join('; ')}`);
  if (summary.failedRequests.length) fail(`failed requests: ${summary.failedRequests.join('; ')}`);
  if (summary.offOrigin.length) fail(`requests beyond the service: ${summary.offOrigin.join('; ')}`);
  summary.ok = summary.failures.length === 0;
} catch (error) {
  fail(String(error));
} finally {
  await browser.close();
}

console.log(JSON.stringify(summary));
process.exit(summary.ok ? 0 : 1);
