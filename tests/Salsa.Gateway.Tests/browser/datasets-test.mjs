// Your datasets, found again after a reload: the page lists the upload with its size and the runs
// that used it, starts its workflow, renames it (an empty name said at the field), refuses to delete
// a dataset a running run uses (the gateway's reason shown) and deletes one no run holds; the runs
// list names the upload, not its id; filters are in the address. axe at zero violations at 390, 1440
// and 1920 px, light and dark.
// Usage: node datasets-test.mjs <gateway-url>
import { axeAtSizes, begin, finish } from './common.mjs';

const [base] = process.argv.slice(2);
const root = base.replace(/\/$/, '');
const { summary, fail, browser } = await begin();
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('pageerror', (error) => fail(`page error: ${error.message}`));
  page.on('dialog', (dialog) => dialog.accept());
  await page.goto(root, { waitUntil: 'load' });
  // 200 places around Indianapolis, uploaded as a user would with the Your data card's endpoint.
  const uploaded = await page.evaluate(async () => {
    const rows = ['id,latitude,longitude,weight'];
    for (let i = 0; i < 200; i++) rows.push(`p${i},${(39 + (i % 17) * 0.11).toFixed(4)},${(-86.9 + (i % 23) * 0.07).toFixed(4)},${1 + (i % 9)}`);
    const response = await fetch('/api/uploads/places?name=my-places.csv', { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: rows.join('\n') });
    return (await response.json()).dataset.datasetId;
  });
  summary.uploaded = uploaded;

  // Found again from the top bar, after a reload.
  await page.reload({ waitUntil: 'load' });
  await page.locator('.top-nav a', { hasText: 'Datasets' }).click();
  const row = page.locator(`#datasets-list tr[data-dataset="${uploaded}"]`);
  await row.waitFor({ timeout: 15_000 });
  summary.row = (await row.locator('td').allTextContents()).map((text) => text.trim());
  if (!summary.row[0].startsWith('my-places.csv') || summary.row[1] !== 'census' || summary.row[2] !== '200') fail(`the upload's row reads ${JSON.stringify(summary.row)}`);

  // Its workflow started from its row: the run reads it, and the row then names the run.
  await row.getByRole('button', { name: 'Start census-places on my-places.csv' }).click();
  await page.waitForFunction(() => /^#\/runs\/[0-9a-f-]{36}$/.test(location.hash), null, { timeout: 10_000 });
  const run = page.url().split('#/runs/')[1];
  await page.locator('#run-state', { hasText: 'succeeded' }).waitFor({ timeout: 120_000 });
  // The list names the upload once it has read the datasets' names (it asks when a run names one).
  await page.locator(`#runs tr[data-run="${run}"] .run-parameters .chip`, { hasText: 'my-places.csv' }).waitFor({ timeout: 10_000 }).catch(() => {});
  summary.chips = await page.locator(`#runs tr[data-run="${run}"] .run-parameters .chip`).allTextContents();
  if (!summary.chips.some((chip) => /import\.dataset\s+my-places\.csv/.test(chip)) || summary.chips.some((chip) => /import\.file/.test(chip))) fail(`the run's chips read ${JSON.stringify(summary.chips)}`);
  await page.goto(`${root}/#/datasets`, { waitUntil: 'load' });
  await row.locator(`a.dataset-run[href="#/runs/${run}"]`).waitFor({ timeout: 15_000 });

  // Renamed: an empty name is said at the field and changes nothing; Enter saves a good one.
  await row.getByRole('button', { name: 'Rename my-places.csv' }).click();
  const field = row.locator('input[type="text"]');
  await field.fill('  ');
  await row.getByRole('button', { name: 'Save' }).click();
  summary.emptyName = { invalid: await field.getAttribute('aria-invalid'), message: (await row.locator('.field-error').textContent())?.trim() };
  if (summary.emptyName.invalid !== 'true' || !/needs a name/.test(summary.emptyName.message ?? '')) fail(`an empty name: ${JSON.stringify(summary.emptyName)}`);
  await field.fill('Indianapolis sample');
  await field.press('Enter');
  await row.locator('td.dataset-name', { hasText: 'Indianapolis sample' }).waitFor({ timeout: 10_000 });
  const named = await page.evaluate(async (id) => (await (await fetch(`/api/datasets/${id}`)).json()).name, uploaded);
  if (named !== 'Indianapolis sample') fail(`the API names it ${named}`);

  // Filters in the address: a name part and a kind; a reload keeps them.
  await page.locator('#datasets-name').fill('indianapolis');
  await page.locator('#datasets-name').press('Enter');
  await page.waitForFunction(() => location.hash === '#/datasets?name=indianapolis', null, { timeout: 5_000 });
  await page.reload({ waitUntil: 'load' });
  await page.locator('#datasets-list tr[data-dataset]').first().waitFor({ timeout: 15_000 });
  summary.filtered = await page.locator('#datasets-list tr[data-dataset]').count();
  if (summary.filtered !== 1 || (await page.locator('#datasets-name').inputValue()) !== 'indianapolis') fail(`the name filter after a reload shows ${summary.filtered} rows`);
  await page.locator('#datasets-kind').selectOption('compounds');
  await page.locator('#datasets-list', { hasText: 'No dataset matches these filters.' }).waitFor({ timeout: 10_000 });

  // A dataset a running run reads cannot be deleted: the national census, its clustering under way.
  const long = await page.evaluate(async () => (await (await fetch('/api/runs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ workflow: 'census-us' }) })).json()).id);
  const held = await page.evaluate(async (id) => {
    for (;;) {
      const view = await (await fetch(`/api/runs/${id}`)).json();
      const query = view.steps.find((st) => st.id === 'query');
      if (query?.state === 'succeeded') return query.outputs.dataset;
      if (!['queued', 'running'].includes(view.state)) return null;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, long);
  await page.goto(`${root}/#/datasets`, { waitUntil: 'load' });
  const heldRow = page.locator(`#datasets-list tr[data-dataset="${held}"]`);
  await heldRow.waitFor({ timeout: 15_000 });
  await heldRow.getByRole('button', { name: /^Delete / }).click();
  await page.locator('#datasets-message.error').waitFor({ timeout: 10_000 });
  summary.refusal = (await page.locator('#datasets-message').textContent())?.trim();
  if (!/was not deleted: .*in use by run/.test(summary.refusal ?? '')) fail(`deleting a held dataset says "${summary.refusal}"`);
  if (await heldRow.count() !== 1) fail('the held dataset left the list');
  await page.evaluate(async (id) => fetch(`/api/runs/${id}/cancel`, { method: 'POST' }), long);

  // One no run holds goes.
  await row.getByRole('button', { name: 'Delete Indianapolis sample' }).click();
  await row.waitFor({ state: 'detached', timeout: 10_000 });
  summary.deleted = (await page.evaluate(async (id) => (await fetch(`/api/datasets/${id}`)).status, uploaded)) === 404;
  if (!summary.deleted) fail('the deleted dataset is still there');

  summary.axe = await axeAtSizes(browser, `${root}/#/datasets`, '#datasets-list tr[data-dataset]', fail);
} catch (error) {
  fail(error.message.split('\n')[0]);
} finally {
  await browser.close();
}
finish(summary);
