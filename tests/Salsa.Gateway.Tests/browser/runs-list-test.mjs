// The runs list as it is used: a running run's duration moves on in the list as it does on its page,
// and a day range whose To is before its From is said at the To field in words (no "Runs: 400 …"
// and no request the gateway must refuse). axe at zero violations with the field marked,
// at 390, 1440 and 1920 px, light and dark.
// Usage: node runs-list-test.mjs <gateway-url>
import { axeEverySize, begin, finish } from './common.mjs';

const [base] = process.argv.slice(2);
const { summary, fail, browser } = await begin();
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const refused = [];
  page.on('response', (response) => { if (new URL(response.url()).pathname === '/api/runs' && response.status() >= 400) refused.push(`${response.status()} ${response.url()}`); });
  page.on('pageerror', (error) => fail(`page error: ${error.message}`));
  await page.goto(base, { waitUntil: 'domcontentloaded' });
  await page.locator('#runs').waitFor({ timeout: 15_000 });

  // A run that lasts: the national census (tens of seconds), started over the API.
  const run = await page.evaluate(async () => (await (await fetch('/api/runs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ workflow: 'census-us' }) })).json()).id);
  const row = page.locator(`#runs tr[data-run="${run}"]`);
  await row.locator('.badge.state-running').waitFor({ timeout: 60_000 });
  const cell = row.locator('td').last();
  // Into its long step (the clustering), when no step changes state for many seconds.
  await page.waitForFunction(async (id) => {
    const view = await (await fetch(`/api/runs/${id}`)).json();
    return view.steps.some((step) => step.id === 'cluster' && step.state === 'running');
  }, run, { timeout: 60_000, polling: 250 });
  // Read each 1.1 s: every reading later than the one before, as on the run's own page.
  summary.durations = [];
  for (let reading = 0; reading < 6; reading++) {
    await page.waitForTimeout(1100);
    summary.durations.push((await cell.textContent())?.trim());
  }
  const stalled = summary.durations.filter((text, k) => k > 0 && text === summary.durations[k - 1]).length;
  if (stalled) fail(`a running run's duration stood still ${stalled} time(s): ${summary.durations.join(', ')}`);
  await page.evaluate(async (id) => fetch(`/api/runs/${id}/cancel`, { method: 'POST' }), run);

  // From after To.
  await page.locator('#filter-from').fill('2026-12-10');
  await page.locator('#filter-to').fill('2026-12-01');
  await page.locator('#filter-to').blur();
  await page.waitForTimeout(800);
  const to = page.locator('#filter-to');
  summary.range = {
    invalid: await to.getAttribute('aria-invalid'),
    message: (await page.locator('#filter-to-error').textContent())?.trim(),
    listError: (await page.locator('#runs .error').count()),
  };
  if (summary.range.invalid !== 'true') fail('To before From does not mark the To field');
  if (!/To must be on or after From/.test(summary.range.message ?? '')) fail(`the range's message reads "${summary.range.message}"`);
  if (summary.range.listError) fail(`the runs list shows an error: ${await page.locator('#runs .error').textContent()}`);
  summary.axe = await axeEverySize(page, 'the runs list with To marked', fail);
  // Mended, the mark goes and the list filters.
  await page.locator('#filter-to').fill('2026-12-31');
  await page.locator('#filter-to').blur();
  await page.waitForTimeout(800);
  if (await to.getAttribute('aria-invalid') === 'true') fail('a good range leaves To marked');
  if (refused.length) fail(`the gateway refused: ${refused.join(', ')}`);

  // The filters are in the address: a reload keeps them, and the address can be shared.
  await page.locator('#filter-state').selectOption('cancelled');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('state') === 'cancelled', null, { timeout: 5_000 });
  summary.address = page.url();
  await page.reload({ waitUntil: 'load' });
  await page.locator('#runs-count').filter({ hasText: '(' }).waitFor({ timeout: 15_000 });
  summary.afterReload = { state: await page.locator('#filter-state').inputValue(), from: await page.locator('#filter-from').inputValue(), to: await page.locator('#filter-to').inputValue() };
  if (JSON.stringify(summary.afterReload) !== JSON.stringify({ state: 'cancelled', from: '2026-12-10', to: '2026-12-31' })) fail(`a reload kept ${JSON.stringify(summary.afterReload)}`);
  const shared = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await shared.goto(`${base.replace(/\/$/, '')}/?workflow=census-us&state=cancelled`, { waitUntil: 'load' });
  await shared.locator(`#runs tr[data-run="${run}"]`).waitFor({ timeout: 15_000 });
  await shared.waitForFunction(() => document.querySelector('#filter-workflow').value === 'census-us', null, { timeout: 15_000 });
  summary.shared = { rows: await shared.locator('#runs tr[data-run]').count(), states: await shared.locator('#runs tr[data-run] .badge').allTextContents() };
  if (summary.shared.states.some((state) => state.trim() !== 'cancelled')) fail(`a shared address lists ${summary.shared.states.join(', ')}`);
  await shared.close();
} catch (error) {
  fail(error.message.split('\n')[0]);
} finally {
  await browser.close();
}
finish(summary);
