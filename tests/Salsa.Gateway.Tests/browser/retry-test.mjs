// Retry from a step in the console: an ended run's step offers "Retry from here" and "Retry with
// changes" — a form of only that step's and its downstream steps' parameters, checked as typed — and
// the new run says what it retried, with the steps before it reused. axe at zero violations with the
// form open at 390, 1440 and 1920 px, light and dark.
// Usage: node retry-test.mjs <gateway-url>
import { axeAtSizes, axeEverySize, begin, finish } from './common.mjs';

const [base] = process.argv.slice(2);
const root = base.replace(/\/$/, '');
const { summary, fail, browser } = await begin();
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('pageerror', (error) => fail(`page error: ${error.message}`));
  await page.goto(root, { waitUntil: 'load' });
  const first = await page.evaluate(async () => {
    const run = await (await fetch('/api/runs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ workflow: 'census-indiana', parameters: { 'cluster.maxClusters': 4 } }) })).json();
    for (let state = run.state; state === 'queued' || state === 'running';) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      state = (await (await fetch(`/api/runs/${run.id}`)).json()).state;
    }
    return run.id;
  });
  summary.runsBefore = await page.evaluate(async () => Number((await fetch('/api/runs?limit=1')).headers.get('X-Total-Count')));
  await page.goto(`${root}/#/runs/${first}/steps/cluster`, { waitUntil: 'load' });
  const panel = page.locator('#step');
  await panel.locator('button.retry-changes').click();
  const form = panel.locator('.retry-form form');
  await form.waitFor({ timeout: 10_000 });
  summary.formSteps = await form.locator('legend .mono').allTextContents();
  if (summary.formSteps.join() !== 'cluster,map') fail(`the retry form has the steps ${summary.formSteps.join(', ')}`);

  // A bad Kmax is said at its field and starts nothing.
  const kmax = form.locator('#retry-cluster-maxClusters');
  await kmax.fill('0');
  await form.getByRole('button', { name: 'Retry from cluster' }).click();
  summary.badKmax = { invalid: await kmax.getAttribute('aria-invalid'), message: (await form.locator('#retry-cluster-maxClusters-error').textContent())?.trim() };
  if (summary.badKmax.invalid !== 'true' || !/at least/.test(summary.badKmax.message ?? '')) fail(`Kmax 0: ${JSON.stringify(summary.badKmax)}`);
  const count = async () => page.evaluate(async () => Number((await fetch('/api/runs?limit=1')).headers.get('X-Total-Count')));
  const before = summary.runsBefore ?? await count();
  await page.waitForTimeout(300);
  if (await count() !== before) fail('a refused retry started a run');

  // Kmax 6: the new run, its header naming what it retried, import and query reused.
  await kmax.fill('6');
  await form.getByRole('button', { name: 'Retry from cluster' }).click();
  await page.waitForFunction((id) => /^#\/runs\/[0-9a-f-]{36}$/.test(location.hash) && !location.hash.includes(id), first, { timeout: 10_000 });
  const second = page.url().split('#/runs/')[1];
  await page.locator('#run-state', { hasText: 'succeeded' }).waitFor({ timeout: 120_000 });
  summary.header = (await page.locator('.run-header dd', { hasText: 'from cluster' }).textContent())?.trim();
  if (summary.header !== `${first.slice(0, 8)} from cluster`) fail(`the header says "${summary.header}"`);
  summary.reused = await page.locator('#steps tr[data-step]').evaluateAll((rows) => rows.filter((r) => r.textContent.includes('reused')).map((r) => r.dataset.step));
  if (summary.reused.join() !== 'import,query') fail(`reused steps: ${summary.reused.join(', ')}`);
  const view = await page.evaluate(async (id) => (await fetch(`/api/runs/${id}`)).json(), second);
  summary.api = { retriedFrom: view.retriedFrom, rerunOf: view.rerunOf, kmax: view.parameters['cluster.maxClusters'] };
  if (view.retriedFrom !== 'cluster' || view.rerunOf !== first || view.parameters['cluster.maxClusters'] !== 6) fail(`the new run: ${JSON.stringify(summary.api)}`);

  // "Retry from here" at once: the map alone again.
  await page.goto(`${root}/#/runs/${second}/steps/map`, { waitUntil: 'load' });
  await panel.locator('button.retry-now').click();
  await page.waitForFunction((id) => /^#\/runs\/[0-9a-f-]{36}$/.test(location.hash) && !location.hash.includes(id), second, { timeout: 10_000 });
  await page.locator('.run-header dd', { hasText: 'from map' }).waitFor({ timeout: 10_000 });

  summary.axe = await axeAtSizes(browser, `${root}/#/runs/${first}/steps/cluster`, '#step button.retry-changes', fail);
  const open = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await open.goto(`${root}/#/runs/${first}/steps/cluster`, { waitUntil: 'load' });
  await open.locator('#step button.retry-changes').click();
  await open.locator('#step .retry-form form').waitFor({ timeout: 10_000 });
  summary.axeFormOpen = await axeEverySize(open, 'the retry form open', fail);
  await open.close();
} catch (error) {
  fail(error.message.split('\n')[0]);
} finally {
  await browser.close();
}
finish(summary);
