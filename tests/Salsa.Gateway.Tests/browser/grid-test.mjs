// The runs grid as it is read (issue 57, finding 5): opened with its newest runs in view (oldest
// left, as Airflow draws it, scrolled to the right end) and with a legend of its colours. axe at zero
// violations at 390, 1440 and 1920 px, light and dark.
// Usage: node grid-test.mjs <gateway-url>
import { axeEverySize, begin, finish } from './common.mjs';

const [base] = process.argv.slice(2);
const { summary, fail, browser } = await begin();
const yaml = 'name: tiny\nsteps:\n  import:\n    service: census\n    operation: import\n    parameters: { source: indiana-1000 }\n';
try {
  // A phone's width: forty runs are more columns than it has room for.
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  page.on('pageerror', (error) => fail(`page error: ${error.message}`));
  await page.goto(base, { waitUntil: 'load' });
  // Forty runs, one after another.
  summary.runs = await page.evaluate(async (text) => {
    const ids = [];
    for (let i = 0; i < 40; i++) {
      const run = await (await fetch('/api/runs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ yaml: text }) })).json();
      ids.push(run.id);
      for (let state = run.state; state === 'queued' || state === 'running';) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        state = (await (await fetch(`/api/runs/${run.id}`)).json()).state;
      }
    }
    return ids;
  }, yaml);
  await page.locator('#runs-as-grid').click();
  const scroller = page.locator('#runs .grid-scroll').first();
  await scroller.waitFor({ timeout: 15_000 });
  await page.waitForFunction((id) => document.querySelector(`#runs a.grid-run[data-run="${id}"]`) !== null, summary.runs.at(-1), { timeout: 15_000 });
  await page.waitForTimeout(500);
  summary.scroll = await scroller.evaluate((node) => ({ left: node.scrollLeft, width: node.scrollWidth, client: node.clientWidth }));
  if (summary.scroll.width <= summary.scroll.client) fail(`forty runs do not overflow the grid (${JSON.stringify(summary.scroll)}): the test proves nothing`);
  const newest = await page.locator(`#runs a.grid-run[data-run="${summary.runs.at(-1)}"]`).boundingBox();
  const box = await scroller.boundingBox();
  summary.newestInView = newest && box ? newest.x >= box.x && newest.x + newest.width <= box.x + box.width + 1 : false;
  if (!summary.newestInView) fail(`the newest run is off-screen: ${JSON.stringify({ newest, box, scroll: summary.scroll })}`);
  summary.legend = await page.locator('#runs .grid-legend li').allTextContents();
  for (const state of ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'skipped']) {
    if (!summary.legend.includes(state)) fail(`the legend has no ${state}: ${summary.legend.join(', ')}`);
  }
  summary.axe = await axeEverySize(page, 'the runs grid', fail);
  await page.locator('#runs-as-list').click(); // the page remembers the view: leave it as it was
} catch (error) {
  fail(error.message.split('\n')[0]);
} finally {
  await browser.close();
}
finish(summary);
