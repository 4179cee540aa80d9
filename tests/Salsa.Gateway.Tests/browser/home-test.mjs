// The home page as a day's work begins: the runs history fills the main pane (not 1,300 px down
// the sidebar), each run one compact row whose parameters are chips, at 390, 1440 and 1920 px, light
// and dark; a run opened puts the history beside it, and home brings it back. axe at zero violations.
// Usage: node home-test.mjs <gateway-url>
import { axeViolations, begin, finish } from './common.mjs';

const [base] = process.argv.slice(2);
const { summary, fail, browser } = await begin({ sizes: {} });
try {
  // Three runs with overridden parameters, started over the API; they end in seconds.
  const first = await browser.newPage();
  await first.goto(base, { waitUntil: 'domcontentloaded' });
  const started = await first.evaluate(async () => {
    const ids = [];
    for (const maxClusters of [5, 6, 7]) {
      const response = await fetch('/api/runs', {
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ workflow: 'census-indiana', parameters: { 'cluster.maxClusters': maxClusters, 'map.width': 480, 'query.contiguousOnly': false } }),
      });
      ids.push((await response.json()).id);
    }
    return ids;
  });
  await first.waitForFunction(async (ids) => {
    const runs = await Promise.all(ids.map(async (id) => (await fetch(`/api/runs/${id}`)).json()));
    return runs.every((run) => run.state !== 'queued' && run.state !== 'running');
  }, started, { timeout: 120_000, polling: 500 });
  await first.close();

  for (const [width, height] of [[390, 844], [1440, 900], [1920, 1080]]) {
    for (const scheme of ['light', 'dark']) {
      const page = await browser.newPage({ viewport: { width, height }, colorScheme: scheme });
      page.on('pageerror', (error) => fail(`${width} ${scheme}: page error: ${error.message}`));
      await page.goto(base, { waitUntil: 'load' });
      await page.locator('#runs tr[data-run]').nth(2).waitFor({ timeout: 15_000 });
      const seen = await page.evaluate(() => {
        const card = document.querySelector('#runs-card');
        const rows = [...document.querySelectorAll('#runs tr[data-run]')];
        return {
          inMain: card.closest('main') !== null,
          top: Math.round(card.getBoundingClientRect().top + window.scrollY),
          rowHeights: rows.map((row) => Math.round(row.getBoundingClientRect().height)),
          chips: rows.map((row) => [...row.querySelectorAll('.run-parameters .chip')].map((chip) => chip.textContent.trim())),
          sideways: document.documentElement.scrollWidth > document.documentElement.clientWidth,
        };
      });
      summary.sizes[`${width}-${scheme}`] = seen;
      if (!seen.inMain) fail(`${width} ${scheme}: the runs are not in the main pane`);
      // Under the page's title: the first screen shows them (on a phone, the one column begins with them).
      if (seen.top > 400) fail(`${width} ${scheme}: the runs begin ${seen.top} px down`);
      if (seen.sideways) fail(`${width} ${scheme}: the page scrolls sideways`);
      if (width >= 1440 && Math.max(...seen.rowHeights) > 44) fail(`${width} ${scheme}: a run's row is ${Math.max(...seen.rowHeights)} px tall`);
      if (!seen.chips.every((chips) => chips.length === 3 && chips.some((chip) => /^cluster\.maxClusters\s+[567]$/.test(chip)))) fail(`${width} ${scheme}: chips ${JSON.stringify(seen.chips)}`);
      const violations = await axeViolations(page);
      if (violations.length) fail(`${width} ${scheme}: axe: ${violations.map((v) => `${v.id} ${v.first}`).join(', ')}`);

      if (width === 1440 && scheme === 'light') {
        // A run opened: the history stands beside it in the sidebar; home brings it back to the main pane.
        await page.locator('#runs tr[data-run]').first().click();
        await page.locator('.run-header h1').waitFor({ timeout: 15_000 });
        summary.besideARun = await page.evaluate(() => document.querySelector('#runs-card').closest('.sidebar') !== null);
        if (!summary.besideARun) fail('with a run open the history is not in the sidebar');
        await page.locator('.brand').click();
        await page.locator('.welcome').waitFor({ timeout: 15_000 });
        summary.backHome = await page.evaluate(() => document.querySelector('#runs-card').closest('main') !== null);
        if (!summary.backHome) fail('home does not bring the history back to the main pane');
      }
      await page.close();
    }
  }
} catch (error) {
  fail(error.message.split('\n')[0]);
} finally {
  await browser.close();
}
finish(summary);
