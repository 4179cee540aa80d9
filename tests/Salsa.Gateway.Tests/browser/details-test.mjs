// The console's smaller promises (issue 57, finding 13 and Cancel): the home page asks for the runs
// once; its skip link does not speak of a run; the services' summary does not claim "serving" while
// the gateway does not answer, and comes back when it does; Cancel asks first, and a run whose
// cancel is declined goes on. axe at zero violations with the gateway unreachable, on a cancelled
// run, and with the re-run form open, at 390, 1440 and 1920 px, light and dark.
// Usage: node details-test.mjs <gateway-url>
import { axeEverySize, begin, finish } from './common.mjs';

const [base] = process.argv.slice(2);
const { summary, fail, browser } = await begin();
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('pageerror', (error) => fail(`page error: ${error.message}`));
  const lists = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (request.method() === 'GET' && url.pathname === '/api/runs') lists.push(url.search);
  });
  await page.goto(base, { waitUntil: 'load' });
  await page.locator('#runs-count').filter({ hasText: '(' }).waitFor({ timeout: 15_000 });
  await page.waitForTimeout(2500);
  summary.listsOnLoad = lists.length;
  if (lists.length !== 1) fail(`the home page asked for the runs ${lists.length} times`);
  summary.skipLink = (await page.locator('.skip-link').textContent())?.trim();
  if (/run/i.test(summary.skipLink ?? '')) fail(`the home page's skip link reads "${summary.skipLink}"`);

  // The gateway stops answering (every call refused on the way): the summary says it cannot know.
  await page.locator('#services-summary').filter({ hasText: 'serving' }).waitFor({ timeout: 15_000 });
  await page.route('**/api/**', (route) => route.abort());
  await page.locator('#filter-state').selectOption('failed'); // the list is asked for, and cannot be had
  await page.locator('#connection.down').waitFor({ timeout: 10_000 });
  summary.servicesWhileDown = (await page.locator('#services-summary').textContent())?.trim();
  if (/serving/.test(summary.servicesWhileDown ?? '')) fail(`with the gateway unreachable the header says "${summary.servicesWhileDown}"`);
  summary.axeWhileDown = await axeEverySize(page, 'the home page, the gateway unreachable', fail);
  await page.unroute('**/api/**');
  await page.locator('#filter-state').selectOption('');
  await page.locator('#services-summary').filter({ hasText: 'serving' }).waitFor({ timeout: 15_000 });
  summary.servicesAgain = (await page.locator('#services-summary').textContent())?.trim();

  // Cancel asks; declined, the run goes on; accepted, it is cancelled.
  const run = await page.evaluate(async () => (await (await fetch('/api/runs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ workflow: 'census-us' }) })).json()).id);
  await page.evaluate((id) => { location.hash = `#/runs/${id}`; }, run);
  const cancel = page.locator('.run-header button.cancel');
  await cancel.waitFor({ timeout: 30_000 });
  const dialogs = [];
  page.once('dialog', async (dialog) => { dialogs.push(dialog.message()); await dialog.dismiss(); });
  await cancel.click();
  await page.waitForTimeout(1500);
  const state = async () => (await page.evaluate(async (id) => (await (await fetch(`/api/runs/${id}`)).json()).state, run));
  summary.afterDeclined = await state();
  if (dialogs.length !== 1 || !/Cancel this census-us run\?/.test(dialogs[0])) fail(`Cancel asked: ${JSON.stringify(dialogs)}`);
  if (!['queued', 'running'].includes(summary.afterDeclined)) fail(`a declined cancel left the run ${summary.afterDeclined}`);
  page.once('dialog', async (dialog) => { dialogs.push(dialog.message()); await dialog.accept(); });
  await cancel.click();
  await page.waitForFunction(async (id) => (await (await fetch(`/api/runs/${id}`)).json()).state === 'cancelled', run, { timeout: 30_000, polling: 500 });
  summary.dialogs = dialogs;
  // Cancelled is said plainly, not as an error; the steps that never started say they did not run.
  await page.locator('#run-state').filter({ hasText: 'cancelled' }).waitFor({ timeout: 15_000 });
  summary.cancelledHeader = { alerts: await page.locator('.run-header .alert').count(), notice: (await page.locator('.run-header .notice').textContent().catch(() => ''))?.trim() };
  if (summary.cancelledHeader.alerts) fail('a cancelled run shows an error');
  if (!/Cancelled on request/.test(summary.cancelledHeader.notice ?? '')) fail(`a cancelled run's header says "${summary.cancelledHeader.notice}"`);
  summary.stepStates = await page.evaluate(async (id) => (await (await fetch(`/api/runs/${id}`)).json()).steps.map((step) => `${step.id}:${step.state}`), run);
  if (summary.stepStates.some((text) => /^map:cancelled$/.test(text))) fail(`a step that never started says cancelled: ${summary.stepStates.join(', ')}`);

  // A run that was not traced shows no trace field (it read "–").
  summary.traceField = await page.evaluate(async (id) => ({ traceId: (await (await fetch(`/api/runs/${id}`)).json()).traceId, shown: [...document.querySelectorAll('.run-header dt')].some((dt) => dt.textContent.trim() === 'trace') }), run);
  if (!summary.traceField.traceId && summary.traceField.shown) fail('a run with no trace shows a trace field');
  summary.axeCancelled = await axeEverySize(page, 'a cancelled run', fail);

  // On a phone, the re-run form's submit stays in reach (it was some 3,000 px down).
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('.run-header button.rerun-changes').click();
  const submit = page.locator('#rerun form.parameter-form button[type="submit"]');
  await submit.waitFor({ timeout: 15_000 });
  await page.locator('#rerun .parameter input').first().focus();
  const box = await submit.boundingBox();
  summary.phoneSubmit = box;
  if (!box || box.y < 0 || box.y + box.height > 844) fail(`on a phone the re-run submit is at ${JSON.stringify(box)}, outside the window`);
  summary.phoneFormHeight = await page.locator('#rerun form.parameter-form').evaluate((node) => node.getBoundingClientRect().height);
  summary.axeRerunForm = await axeEverySize(page, 'the re-run form open', fail);
} catch (error) {
  fail(error.message.split('\n')[0]);
} finally {
  await browser.close();
}
finish(summary);
