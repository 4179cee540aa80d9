// Steps you can open: the graph's text at the page's size and each node a link; a click on a node, a
// step's row or a cell of the runs grid opens the step in the page — its parameters, its inputs and
// outputs, its tries, its calls, what its job used (CPU time, cores, memory) and its log, one part
// per try, live while it runs (the job's end arrives without a reload) and searchable; the open step is in the address. axe at zero violations
// with the step open at 390, 1440 and 1920 px, light and dark.
// Usage: node step-test.mjs <gateway-url>
import { axeAtSizes, begin, finish } from './common.mjs';

const [base] = process.argv.slice(2);
const { summary, fail, browser } = await begin({ graph: {} });
const root = base.replace(/\/$/, '');
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('pageerror', (error) => fail(`page error: ${error.message}`));
  await page.goto(root, { waitUntil: 'load' });
  // The national census: its clustering runs for seconds, long enough to watch its log live.
  const run = await page.evaluate(async () => (await (await fetch('/api/runs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ workflow: 'census-us', parameters: { 'cluster.maxClusters': 30 } }) })).json()).id);
  summary.run = run;
  await page.goto(`${root}/#/runs/${run}`, { waitUntil: 'load' });
  await page.locator('#graph svg.dag-graph a.dag-link').nth(3).waitFor({ timeout: 15_000 });

  // The graph's text as the reader sees it, at three widths: never shrunk below its 12 px.
  for (const width of [390, 1440, 1920]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(200);
    summary.graph[width] = await page.evaluate(() => {
      const text = document.querySelector('#graph text.dag-id');
      const svg = text.ownerSVGElement;
      const scale = svg.getBoundingClientRect().width / svg.width.baseVal.value;
      return Math.round(parseFloat(getComputedStyle(text).fontSize) * scale * 10) / 10;
    });
    if (summary.graph[width] < 11.5) fail(`at ${width} px the graph's text is ${summary.graph[width]} px`);
  }
  await page.setViewportSize({ width: 1440, height: 900 });

  // The clustering opened from its node while it runs.
  await page.waitForFunction(async (id) => (await (await fetch(`/api/runs/${id}`)).json()).steps.some((st) => st.id === 'cluster' && st.state === 'running'), run, { timeout: 90_000, polling: 250 });
  await page.locator('#graph a.dag-link', { has: page.locator('g[data-step="cluster"]') }).click();
  await page.waitForFunction((id) => location.hash === `#/runs/${id}/steps/cluster`, run, { timeout: 5_000 });
  const panel = page.locator('#step');
  await panel.locator('h2', { hasText: 'cluster' }).waitFor({ timeout: 10_000 });
  // Its calls come as they are made (the job's start, then its watch in flight).
  await panel.locator('table.step-hops tbody tr').first().waitFor({ timeout: 10_000 });
  summary.panel = await panel.evaluate((card) => ({
    parameters: [...card.querySelectorAll('.step-facts > div:first-child table.kv th')].map((th) => th.textContent),
    inputs: [...card.querySelectorAll('.step-facts ul.plain a')].map((a) => a.textContent),
    calls: card.querySelectorAll('table.step-hops tbody tr').length,
  }));
  if (!summary.panel.parameters.includes('maxClusters')) fail(`the step's parameters: ${summary.panel.parameters.join(', ')}`);
  if (summary.panel.inputs.join() !== 'query') fail(`the step's inputs: ${summary.panel.inputs.join(', ')}`);
  if (summary.panel.calls < 1) fail('the step shows no calls');
  await panel.locator('.log-part h4', { hasText: /^try 1 · annealing job / }).waitFor({ timeout: 15_000 });
  const logText = async () => (await panel.locator('.log-lines').allTextContents()).join('\n');
  summary.liveAtOpen = (await panel.locator('.log-count').textContent())?.trim();
  if (!/live/.test(summary.liveAtOpen ?? '') && !(await logText()).includes(' job: succeeded after ')) fail(`a running step's log count reads "${summary.liveAtOpen}"`);
  // Its end comes to the open panel by itself.
  await page.waitForFunction(() => [...document.querySelectorAll('#step .log-lines')].some((pre) => pre.textContent.includes(' job: succeeded after ')), null, { timeout: 120_000, polling: 500 });
  summary.endedLive = true;

  // What its job used, once it ended: CPU time, cores, how many were busy, allocations, the process's peak.
  await panel.locator('.step-resources tbody tr').first().waitFor({ timeout: 15_000 });
  summary.resources = await panel.locator('.step-resources tbody tr').first().locator('td').allTextContents();
  const [who, cpu, cores, busy, allocated, peak] = summary.resources;
  if (!/^try 1 · annealing$/.test(who) || !/^\d[^·]* (ms|s)( · \d[^·]* (ms|s) on the grid)?$/.test(cpu) || !/^[12]$/.test(cores) || !/^\d+\.\d\d cores$/.test(busy) || !/(KiB|MiB|GiB)$/.test(allocated) || !/[MG]iB/.test(peak)) {
    fail(`the step's resources read ${JSON.stringify(summary.resources)}`);
  }

  // Searched: only the lines that hold the words, each find marked.
  await panel.locator('.log-search').fill('PHASE');
  await page.waitForTimeout(200);
  const shown = (await logText()).split('\n').filter(Boolean);
  summary.search = { lines: shown.length, count: (await panel.locator('.log-count').textContent())?.trim(), marks: await panel.locator('.log-lines mark').count() };
  if (!shown.length || shown.some((line) => !line.toLowerCase().includes('phase'))) fail(`the search shows ${JSON.stringify(shown.slice(0, 3))}`);
  if (!/^\d+ of \d+ lines match$/.test(summary.search.count ?? '') || summary.search.marks < shown.length) fail(`the search says "${summary.search.count}" with ${summary.search.marks} marks`);

  // The address opens the step: a reload, and a shared link in a new page.
  await page.reload({ waitUntil: 'load' });
  await page.locator('#step h2', { hasText: 'cluster' }).waitFor({ timeout: 15_000 });
  // A step's row opens it too: the import, which started no service job, shows the gateway's calls.
  await page.locator('#steps .steps-table a.step-id', { hasText: 'import' }).click();
  await page.locator('#step h2', { hasText: 'import' }).waitFor({ timeout: 10_000 });
  await page.waitForFunction(() => document.querySelector('#step .log-lines')?.textContent.includes(' gateway: called census Import: '), null, { timeout: 10_000 });
  summary.importLog = true;

  // A cell of the runs grid opens its run at that step.
  await page.goto(`${root}/`, { waitUntil: 'load' });
  await page.locator('#runs-as-grid').click();
  await page.locator(`#runs td.grid-cell a[data-run="${run}"][data-step="map"]`).click();
  await page.waitForFunction((id) => location.hash === `#/runs/${id}/steps/map`, run, { timeout: 5_000 });
  await page.locator('#step h2', { hasText: 'map' }).waitFor({ timeout: 15_000 });
  summary.fromGrid = true;

  // Close goes back to the run.
  await page.locator('#step button', { hasText: 'Close' }).click();
  await page.waitForFunction((id) => location.hash === `#/runs/${id}` && document.querySelector('#step').hidden, run, { timeout: 5_000 });

  summary.axe = await axeAtSizes(browser, `${root}/#/runs/${run}/steps/cluster`, '#step .log-part', fail);
} catch (error) {
  fail(error.message.split('\n')[0]);
} finally {
  await browser.close();
}
finish(summary);
