// The runs history in a real browser, over a store holding a few hundred runs: the count is the
// runs stored (not the rows shown), the pages walk through them, each filter (workflow, state, dates)
// shows what the API selects, the list follows the runs' event stream (a run started elsewhere
// appears without a reload, before the fallback poll could have brought it) and the keyboard focus
// stays on its row as the list is rebuilt. Prints one JSON summary.
// Usage: node history-test.mjs <gateway url> <workflow to start> <day with runs, yyyy-mm-dd>
// Exits 0 when every check passed, 1 when one failed, 2 on bad arguments.
import { launchChromium, axeEverySize, finish } from './common.mjs';

const [url, workflow, day] = process.argv.slice(2);
if (!url || !workflow || !/^\d{4}-\d{2}-\d{2}$/.test(day ?? '')) {
  console.error('usage: node history-test.mjs <gateway url> <workflow to start> <yyyy-mm-dd>');
  process.exit(2);
}

const summary = { ok: false, failures: [], pageErrors: [] };
const fail = (message) => summary.failures.push(message);

const browser = await launchChromium();
try {
  // The reader's day is UTC here, so the date filters' days are the seeded runs' days.
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, timezoneId: 'UTC' });
  page.on('pageerror', (error) => summary.pageErrors.push(String(error)));
  summary.streamRequests = 0;
  page.on('request', (request) => { if (new URL(request.url()).pathname === '/api/runs/events') summary.streamRequests += 1; });
  try {
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 30_000 });
    await page.locator('#runs tr[data-run]').first().waitFor({ timeout: 30_000 });

    /** What the API says for a query: its total and its first page's ids. */
    const api = (query) => page.evaluate(async (q) => {
      const response = await fetch(`/api/runs?${new URLSearchParams({ limit: 50, ...q })}`);
      return { total: Number(response.headers.get('X-Total-Count')), ids: (await response.json()).map((r) => r.id) };
    }, query);
    /** What the list shows once it has settled on `expected` (the API's answer). */
    const shown = async (expected, what) => {
      try {
        await page.waitForFunction((e) => document.querySelector('#runs-count').textContent === `(${e.total.toLocaleString('en-US')})`
          && [...document.querySelectorAll('#runs tr[data-run]')].map((r) => r.dataset.run).join() === e.ids.join(), expected, { timeout: 15_000 });
      } catch {
        fail(`${what}: the list shows ${await page.locator('#runs-count').textContent()} with ${await page.locator('#runs tr[data-run]').count()} rows; the API ${expected.total} with ${expected.ids.length}`);
      }
      return {
        count: await page.locator('#runs-count').textContent(),
        rows: await page.locator('#runs tr[data-run]').count(),
        page: await page.locator('#runs-page').textContent(),
        states: [...new Set(await page.locator('#runs tr[data-run] .badge').allTextContents())],
        workflows: [...new Set(await page.locator('#runs tr[data-run] td:nth-child(2) a').allTextContents())],
        created: await page.locator('#runs tr[data-run] td.run-created').evaluateAll((cells) => cells.map((c) => c.title)),
      };
    };

    const all = await api({});
    summary.all = await shown(all, 'all runs');
    if (all.total < 200) fail(`the store holds ${all.total} runs; the test needs a few hundred`);
    if (summary.all.rows !== 50) fail(`the first page shows ${summary.all.rows} rows, not 50`);

    await page.locator('#runs-older').click();
    summary.second = await shown(await api({ offset: 50 }), 'the second page');
    if (summary.second.page !== `51–100 of ${all.total.toLocaleString('en-US')}`) fail(`the second page reads "${summary.second.page}"`);
    await page.locator('#runs-newer').click();
    await shown(all, 'back to the first page');
    summary.newerDisabled = await page.locator('#runs-newer').isDisabled();
    if (!summary.newerDisabled) fail('"Newer" is enabled on the first page');

    await page.locator('#filter-state').selectOption('failed');
    summary.failed = await shown(await api({ state: 'failed' }), 'state failed');
    if (summary.failed.states.join() !== 'failed') fail(`state "failed" shows ${summary.failed.states.join(', ')}`);

    await page.locator('#filter-workflow').selectOption('chem-40k');
    summary.chemFailed = await shown(await api({ state: 'failed', workflow: 'chem-40k' }), 'chem-40k, failed');
    if (summary.chemFailed.workflows.join() !== 'chem-40k') fail(`workflow "chem-40k" shows ${summary.chemFailed.workflows.join(', ')}`);

    await page.locator('#filter-workflow').selectOption('');
    await page.locator('#filter-state').selectOption('');
    await page.locator('#filter-from').fill(day);
    await page.locator('#filter-to').fill(day);
    const next = new Date(`${day}T00:00:00Z`);
    next.setUTCDate(next.getUTCDate() + 1);
    summary.day = await shown(await api({ from: `${day}T00:00:00Z`, before: next.toISOString() }), `the day ${day}`);
    if (summary.day.rows === 0 || summary.day.created.some((c) => !c.startsWith(day))) fail(`the day ${day} shows runs created ${summary.day.created.slice(0, 3).join(', ')}…`);

    await page.locator('#filter-from').fill('');
    await page.locator('#filter-to').fill('');
    await shown(await api({}), 'the filters cleared');
    summary.axe = await axeEverySize(page, 'the runs history', fail);

    // Live: a run started through the API (not the page) appears at the top from the runs' event
    // stream, and the row that has the keyboard focus keeps it as the list is rebuilt.
    if (summary.streamRequests === 0) fail('the page did not open /api/runs/events');
    const focusedId = await page.locator('#runs tr[data-run]').nth(2).getAttribute('data-run');
    await page.locator('#runs tr[data-run]').nth(2).focus();
    const startedAt = Date.now();
    const started = await page.evaluate(async (name) => (await fetch('/api/runs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ workflow: name, parameters: { 'cluster.maxClusters': 2 } }) })).json(), workflow);
    try {
      await page.waitForFunction((id) => document.querySelector('#runs tr[data-run]')?.dataset.run === id, started.id, { timeout: 10_000 });
      summary.liveMs = Date.now() - startedAt;
    } catch {
      fail(`the run ${started.id} started through the API was not listed within 10 s (the fallback poll is 15 s)`);
    }
    summary.focusKept = await page.evaluate((id) => document.activeElement?.dataset?.run === id, focusedId);
    if (!summary.focusKept) fail('the focused runs row lost the focus when the list was rebuilt');
    summary.total = await page.locator('#runs-count').textContent();
    if (summary.total !== `(${(all.total + 1).toLocaleString('en-US')})`) fail(`after one more run the count reads ${summary.total}`);

    // The grid (Airflow's): per workflow on the page, its runs as columns oldest left, its steps
    // as rows, each cell in the state the API gives that step of that run. The run started above
    // ends first, so the grid and the API are read in the same state.
    // Polled from here: Playwright's waitForFunction takes a predicate's promise as truthy at once.
    const endBy = Date.now() + 120_000;
    summary.startedEnded = null;
    while (Date.now() < endBy) {
      const state = await page.evaluate(async (id) => (await (await fetch(`/api/runs/${id}`)).json()).state, started.id);
      if (state !== 'queued' && state !== 'running') {
        summary.startedEnded = state;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    if (!summary.startedEnded) fail(`the run ${started.id} started through the API did not end within 120 s`);
    await page.locator('#runs-as-grid').click();
    await page.locator('#runs table.runs-grid').first().waitFor({ timeout: 10_000 });
    const expected = await page.evaluate(async () => {
      const runs = await (await fetch('/api/runs?limit=50&offset=0')).json();
      const byWorkflow = {};
      for (const run of runs) (byWorkflow[run.workflow] ??= []).unshift(run);
      return byWorkflow;
    });
    const drawn = await page.locator('#runs table.runs-grid').evaluateAll((tables) => tables.map((t) => ({
      workflow: t.dataset.workflow,
      runs: [...t.querySelectorAll('thead a[data-run]')].map((a) => a.dataset.run),
      rows: [...t.querySelectorAll('tbody tr')].map((tr) => ({
        step: tr.querySelector('th').textContent,
        states: [...tr.querySelectorAll('td')].map((td) => [...td.classList].find((c) => c.startsWith('state-'))?.slice(6) ?? 'none'),
      })),
    })));
    summary.grid = { tables: drawn.length, columns: drawn.reduce((n, t) => n + t.runs.length, 0), cells: drawn.reduce((n, t) => n + t.rows.length * t.runs.length, 0) };
    if (drawn.map((t) => t.workflow).sort().join() !== Object.keys(expected).sort().join()) fail(`the grid's workflows ${drawn.map((t) => t.workflow).join(', ')}; the page's ${Object.keys(expected).join(', ')}`);
    for (const table of drawn) {
      const runs = expected[table.workflow] ?? [];
      if (table.runs.join() !== runs.map((r) => r.id).join()) fail(`${table.workflow}: the grid's columns are not its runs oldest first`);
      for (const row of table.rows) {
        const want = runs.map((r) => {
          const cell = (r.stepStates ?? []).find((c) => c.id === row.step);
          return cell ? (cell.state === 'running' && cell.jobState === 'queued' ? 'queued' : cell.state) : 'none';
        });
        if (row.states.join() !== want.join()) fail(`${table.workflow} step ${row.step}: cells ${row.states.join(',')}, the API ${want.join(',')}`);
      }
    }
    if (summary.grid.cells < 150) fail(`the grid draws ${summary.grid.cells} cells`);
    summary.gridAxe = await axeEverySize(page, 'the runs grid', fail);
    await page.locator('#runs table.runs-grid thead a[data-run]').first().click();
    await page.waitForFunction(() => location.hash.startsWith('#/runs/'), null, { timeout: 5_000 });
    await page.locator('#runs-as-list').click();
    await page.locator('#runs tr[data-run]').first().waitFor({ timeout: 10_000 });
  } catch (error) {
    fail(error.message.split('\n')[0]);
  }
  if (summary.pageErrors.length) fail(`uncaught errors in the page: ${summary.pageErrors.join('; ')}`);
} finally {
  await browser.close();
}

finish(summary);
