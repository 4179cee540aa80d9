// Progress tiles chosen by the operation (issue 57, finding 6): each step's tiles are what its
// operation's job reports (the catalog's `progress`), under its labels — no annealing tiles on a
// Butina, MDS or figure step. Runs chem-compounds (Butina, MDS, a scatter, a molecule grid, a
// search) and census-indiana (the annealing). axe at zero violations on the tiles at 390, 1440 and
// 1920 px, light and dark. Usage: node progress-test.mjs <gateway-url>
import { axeEverySize, begin, finish } from './common.mjs';

const [base] = process.argv.slice(2);
const { summary, fail, browser } = await begin({ tiles: {} });
const expected = {
  'chem-compounds/butina': ['clusters', 'elapsed'],
  'chem-compounds/embed': ['iterations', 'stress', 'elapsed'],
  'chem-compounds/scatter': ['file', 'elapsed'],
  'census-indiana/cluster': ['EM iterations', 'temperature', 'clusters', 'free energy', 'elapsed'],
};
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('pageerror', (error) => fail(`page error: ${error.message}`));
  await page.goto(base, { waitUntil: 'load' });
  for (const workflow of ['chem-compounds', 'census-indiana']) {
    const run = await page.evaluate(async (name) => (await (await fetch('/api/runs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ workflow: name }) })).json()).id, workflow);
    await page.waitForFunction(async (id) => ['succeeded', 'failed'].includes((await (await fetch(`/api/runs/${id}`)).json()).state), run, { timeout: 180_000, polling: 500 });
    await page.evaluate((id) => { location.hash = `#/runs/${id}`; }, run);
    await page.locator('#run-state').filter({ hasText: /succeeded|failed/ }).waitFor({ timeout: 30_000 });
    for (const key of Object.keys(expected).filter((k) => k.startsWith(`${workflow}/`))) {
      const step = key.split('/')[1];
      const tab = page.locator('#live .tabs button', { hasText: new RegExp(`^${step}$`) });
      if (await tab.count()) await tab.click();
      await page.locator('#live .live-step .step-id', { hasText: new RegExp(`^${step}$`) }).waitFor({ timeout: 10_000 });
      await page.waitForFunction(() => document.querySelectorAll('#live .gauge').length > 1, null, { timeout: 10_000 });
      const labels = await page.locator('#live .gauge .gauge-label').allTextContents();
      summary.tiles[key] = labels;
      if (JSON.stringify(labels) !== JSON.stringify(expected[key])) fail(`${key}: tiles ${JSON.stringify(labels)}, not ${JSON.stringify(expected[key])}`);
    }
  }
  summary.axe = await axeEverySize(page, 'the progress tiles', fail);
} catch (error) {
  fail(error.message.split('\n')[0]);
} finally {
  await browser.close();
}
finish(summary);
