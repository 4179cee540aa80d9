// The gateway's web UI in a real browser (Debian's Chromium through playwright-core): opens the
// console, starts a workflow with its Start button, follows the run it navigates to until the run
// ends, then checks what a person would look at — the state, the result image, the hop waterfall and
// the cluster table — then re-runs it with a changed Kmax through the parameter form, saves a
// full-page screenshot and prints one JSON summary.
// With an API key, the gateway is expected to ask for it first: the key is typed into its dialog,
// and everything after (the stream, the images) must work with it.
// Usage: node ui-test.mjs <gateway url> <workflow> <timeout seconds> <screenshot.png> [kmax] [api key]
// Exits 0 when every check passed, 1 when one failed, 2 on bad arguments.
import { launchChromium, axeEverySize, finish } from './common.mjs';

const [url, workflow, timeoutArg, screenshot, kmax, apiKey] = process.argv.slice(2);
const timeoutSeconds = Number(timeoutArg);
if (!url || !workflow || !(timeoutSeconds > 0) || !screenshot) {
  console.error('usage: node ui-test.mjs <gateway url> <workflow> <timeout seconds> <screenshot.png> [kmax]');
  process.exit(2);
}

const FINAL = ['succeeded', 'failed', 'cancelled', 'interrupted'];
const started = Date.now();
const summary = { ok: false, url, workflow, kmax: kmax ? Number(kmax) : null, runId: null, state: null, failures: [], pageErrors: [], consoleErrors: [], failedRequests: [] };
const fail = (message) => summary.failures.push(message);

const WIDTHS = [360, 390, 1024, 1440, 1920, 2560];

/** axe-core on the page as it is: no WCAG 2.1 AA violation at 390, 1440 and 1920 px, light and dark. */
async function checkAccessibility(page, name) {
  summary.axe ??= {};
  for (const [look, count] of Object.entries(await axeEverySize(page, `the ${name} page`, fail))) summary.axe[`${name}/${look}`] = count;
}

/** How far the page is wider than the window, and the elements reaching past its right edge. */
async function overflowAt(page, width) {
  await page.setViewportSize({ width, height: 900 });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  return page.evaluate(() => {
    const over = document.documentElement.scrollWidth - window.innerWidth;
    const name = (e) => e.tagName.toLowerCase() + (e.id ? `#${e.id}` : '') + (typeof e.className === 'string' && e.className ? `.${e.className.trim().split(/\s+/).join('.')}` : '');
    const culprits = over > 0
      ? [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5).slice(-5).map(name)
      : [];
    return { over, culprits };
  });
}

/**
 * Responsive layout: no horizontal overflow on the run page and the home page at every width, and
 * on a phone a run opened from the list is scrolled into view with the keyboard focus on it.
 */
async function checkLayout(page) {
  summary.layout = {};
  const runHash = await page.evaluate(() => location.hash);
  for (const [name, hash] of [['run', runHash], ['home', '#/']]) {
    await page.evaluate((target) => { location.hash = target; }, hash);
    await page.locator(name === 'run' ? '#run-state' : '#workflows [data-workflow]').first().waitFor({ timeout: 15_000 });
    for (const width of WIDTHS) {
      const { over, culprits } = await overflowAt(page, width);
      summary.layout[`${name}@${width}`] = over;
      if (over > 0) fail(`the ${name} page is ${over} px wider than a ${width} px window (${culprits.join(', ')})`);
    }
  }
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await page.locator('#runs tr[data-run]').first().click();
  await page.locator('#run-state').waitFor({ timeout: 15_000 });
  summary.openedOnPhone = await page.evaluate(() => {
    const header = document.querySelector('.run-header');
    const top = header.getBoundingClientRect().top;
    return { top: Math.round(top), inView: top > -1 && top < window.innerHeight, focused: document.activeElement === header }; // scrolled to 0, give or take a subpixel
  });
  if (!summary.openedOnPhone.inView) fail(`a run opened on a 390 px phone has its header at ${summary.openedOnPhone.top} px, out of view`);
  if (!summary.openedOnPhone.focused) fail('a run opened on a 390 px phone does not have the focus');
  await page.setViewportSize({ width: 1440, height: 900 });
}

const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  page.on('pageerror', (error) => summary.pageErrors.push(String(error)));
  page.on('console', (message) => { if (message.type() === 'error') summary.consoleErrors.push(message.text()); });
  page.on('response', (response) => {
    if (response.status() >= 400) summary.failedRequests.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });

  try {
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 30_000 });
    if (apiKey) {
      await page.locator('#key-dialog[open]').waitFor({ timeout: 30_000 });
      summary.askedForKey = (await page.locator('#key-reason').textContent())?.trim();
      await page.locator('#key-input').fill(apiKey);
      await page.locator('#key-form button[value="save"]').click();
      await page.locator('#key-dialog').waitFor({ state: 'hidden', timeout: 10_000 });
    }
    const card = page.locator(`#workflows [data-workflow="${workflow}"]`);
    await card.locator('button.start').waitFor({ state: 'visible', timeout: 30_000 });
    summary.workflows = await page.locator('#workflows [data-workflow]').evaluateAll((nodes) => nodes.map((n) => n.dataset.workflow));
    summary.dag = await card.locator('.dag').textContent().catch(() => null);
    if (kmax) await card.locator('input.kmax').fill(String(kmax));
    // The card's parameters: a form generated from the operations' catalog, holding the workflow's values.
    await card.locator('details.start-form > summary').click();
    const workflowKmax = card.locator('details.start-form input[name="p-cluster-maxClusters"]');
    try {
      await workflowKmax.waitFor({ timeout: 15_000 });
      summary.startForm = { fields: await card.locator('details.start-form .parameter').count(), kmax: await workflowKmax.inputValue() };
      if (summary.startForm.fields < 10) fail(`the start form has ${summary.startForm.fields} fields`);
    } catch (error) {
      fail(`no start form: ${error.message.split('\n')[0]}`);
    }
    await card.locator('details.start-form > summary').click();

    await card.locator('button.start').click();
    await page.waitForFunction(() => /^#\/runs\/[^/]+/.test(location.hash), null, { timeout: 30_000 });
    summary.runId = decodeURIComponent((await page.evaluate(() => location.hash)).replace(/^#\/runs\//, ''));
    await page.locator('#run-state').waitFor({ timeout: 30_000 });

    // While it runs: the page records, from its own DOM changes, whether it ever showed the run as
    // running; the test waits on the state reaching an end, not on a clock.
    await page.evaluate(() => {
      const state = document.querySelector('#run-state');
      window.__sawRunning = state.textContent.trim() === 'running';
      window.__sawInFlight = false;
      new MutationObserver(() => {
        const now = document.querySelector('#run-state');
        if (now && now.textContent.trim() === 'running') window.__sawRunning = true;
        if (document.querySelector('#waterfall .hop-row.in-flight')) window.__sawInFlight = true;
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    try {
      await page.waitForFunction((final) => final.includes(document.querySelector('#run-state')?.textContent.trim()),
        FINAL, { timeout: timeoutSeconds * 1000 });
    } catch (error) {
      fail(`the run did not end within ${timeoutSeconds} s: ${error.message.split('\n')[0]}`);
    }
    summary.state = (await page.locator('#run-state').textContent())?.trim();
    summary.sawRunning = await page.evaluate(() => window.__sawRunning === true);
    // The annealing job's watch lasts the clustering: the waterfall drew it in flight before it landed.
    summary.sawInFlight = await page.evaluate(() => window.__sawInFlight === true);
    if (!summary.sawInFlight) fail('the waterfall never drew a call in flight');
    // The live charts count the progress events the stream brought.
    summary.progressEvents = await page.locator('#live svg.chart text.tick').evaluateAll((nodes) =>
      Math.max(0, ...nodes.map((n) => Number(/^(\d+) progress events$/.exec(n.textContent)?.[1] ?? 0))));
    summary.runSeconds = Math.round((Date.now() - started) / 100) / 10;
    if (summary.state !== 'succeeded') {
      fail(`#run-state reads "${summary.state}", not "succeeded"`);
      summary.runError = await page.locator('.run-header .alert').textContent().catch(() => null);
    }

    if (summary.state === 'succeeded') {
      // The result image: in the page and decoded.
      const image = page.locator('#result img');
      try {
        await image.waitFor({ timeout: 15_000 });
        // The element can be in the page before its source is set (an image without one counts as
        // complete): wait for a source, loaded and decoded.
        await page.waitForFunction(() => {
          const img = document.querySelector('#result img');
          return img && img.getAttribute('src') && img.complete && img.naturalWidth > 0;
        }, null, { timeout: 30_000 }).catch(() => {});
        summary.image = await image.evaluate((img) => ({ src: img.getAttribute('src'), naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight }));
        if (!(summary.image.naturalWidth > 0)) fail(`the result image ${summary.image.src} did not load (naturalWidth 0)`);
      } catch (error) {
        fail(`no result image: ${error.message.split('\n')[0]}`);
      }

      // The run as the API has it, to check the page against.
      const run = await page.evaluate(async ([id, key]) => (await fetch(`/api/runs/${encodeURIComponent(id)}`, { headers: key ? { 'X-Api-Key': key } : {} })).json(), [summary.runId, apiKey ?? null]);
      summary.api = { hops: run.hops?.length ?? 0, artifacts: (run.artifacts ?? []).map((a) => a.name), tables: (run.steps ?? []).filter((st) => Array.isArray(st.outputs?.table)).map((st) => st.id) };

      // Every step opens from its row: a step that started a service job shows that job's log in the page.
      const withJobs = (run.steps ?? []).filter((st) => st.jobs?.length).map((st) => st.id);
      summary.stepLinks = await page.locator('#steps .steps-table a.step-id').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
      if (summary.stepLinks.length !== (run.steps ?? []).length || withJobs.length === 0) fail(`${summary.stepLinks.length} step links for ${(run.steps ?? []).length} steps`);
      await page.locator(`#steps .steps-table tr[data-step="${withJobs[0]}"] a.step-id`).click();
      await page.locator('#step .log-part h4', { hasText: / job [0-9a-f-]{36} \(step / }).first().waitFor({ timeout: 10_000 });
      const firstLog = (await page.locator('#step .log-lines').allTextContents()).join('\n');
      if (!firstLog.includes(' job: accepted: ') || !firstLog.includes(' gateway: started')) fail(`the first step's log reads: ${firstLog.slice(0, 200)}`);
      await page.locator('#step button', { hasText: 'Close' }).click();
      await page.waitForFunction(() => document.querySelector('#step').hidden, null, { timeout: 5_000 });

      summary.hops = await page.locator('#waterfall svg rect.hop').count();
      if (summary.hops < 4) fail(`the waterfall shows ${summary.hops} hops (fewer than 4)`);
      if (summary.hops !== summary.api.hops) fail(`the waterfall shows ${summary.hops} hops, the run has ${summary.api.hops}`);
      summary.clusterRows = await page.locator('#clusters table tbody tr').count();
      if (summary.clusterRows < 1) fail('the cluster table has no rows');
      // A census clustering's centres say their units (the query's planar kilometres).
      summary.clusterHeads = (await page.locator('#clusters table thead th').allTextContents()).map((t) => t.trim());
      if (!summary.clusterHeads.includes('x (km east)') || !summary.clusterHeads.includes('y (km north)')) fail(`the cluster table's heads: ${summary.clusterHeads.join(', ')}`);
      summary.tables = await page.locator('#clusters .table-box').evaluateAll((nodes) => nodes.map((n) => n.dataset.step));
      summary.artifactLinks = await page.locator('#result .artifacts a:not(.download)').count();
      summary.downloads = await page.locator('#result .artifacts a.download[download]').count();
      if (summary.downloads !== summary.api.artifacts.length) fail(`${summary.downloads} download links for ${summary.api.artifacts.length} artifacts`);
      // The DAG view: a node per step, each in the step's state.
      summary.dagNodes = await page.locator('#graph svg.dag-graph g.dag-node.dag-succeeded').count();
      if (summary.dagNodes !== (run.steps ?? []).length) fail(`the graph shows ${summary.dagNodes} succeeded steps of ${(run.steps ?? []).length}`);
      // The map at full size: the viewer opens, zooms in at the + button and pans with the keyboard.
      await page.locator('#result .figure-button').first().click();
      await page.locator('#viewer[open] #viewer-image').waitFor({ timeout: 10_000 });
      await page.waitForFunction(() => document.querySelector('#viewer-image').naturalWidth > 0, null, { timeout: 15_000 });
      const transform = () => page.locator('#viewer-image').evaluate((img) => img.style.transform);
      const fitted = await transform();
      await page.locator('#viewer button[data-zoom="in"]').click();
      const zoomed = await transform();
      await page.locator('#viewer-stage').press('ArrowLeft');
      const panned = await transform();
      summary.viewer = { fitted, zoomed, panned, scale: await page.locator('#viewer-scale').textContent(), downloads: await page.locator('#viewer-downloads a[download]').evaluateAll((links) => links.map((a) => a.textContent)) };
      if (fitted === zoomed || zoomed === panned) fail(`the viewer did not zoom and pan: ${fitted} → ${zoomed} → ${panned}`);
      if (!summary.viewer.downloads.includes('SVG') || !summary.viewer.downloads.includes('GEOJSON')) fail(`the viewer's downloads: ${summary.viewer.downloads.join(', ')}`);
      await checkAccessibility(page, 'figure viewer');
      await page.screenshot({ path: screenshot.replace(/\.png$/, '-viewer.png') });
      await page.locator('#viewer button[data-zoom="close"]').click();
      // A table as CSV: every row, the header first.
      const [download] = await Promise.all([page.waitForEvent('download', { timeout: 10_000 }), page.locator('#clusters .table-box button.csv').first().click()]);
      const csv = await (await import('node:fs/promises')).readFile(await download.path(), 'utf8');
      summary.csvLines = csv.trim().split('\r\n').length;
      if (summary.csvLines !== summary.clusterRows + 1) fail(`the CSV has ${summary.csvLines} lines for ${summary.clusterRows} rows`);
      await checkAccessibility(page, 'run');
      // Opened afresh after it ended, the run still draws its convergence (the gateway kept the progress).
      await page.reload({ waitUntil: 'domcontentloaded' });
      await page.locator('#run-state').waitFor({ timeout: 15_000 });
      // The charts are drawn once the run's stored progress has come (a fetch after the run's own).
      await page.waitForFunction(() => document.querySelectorAll('#live svg.chart').length >= 2, null, { timeout: 30_000 }).catch(() => {});
      summary.chartsAfterReload = await page.locator('#live svg.chart').count();
      if (summary.chartsAfterReload < 2) fail(`the finished run, reopened, draws ${summary.chartsAfterReload} convergence charts`);
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: screenshot.replace(/\.png$/, '-dark.png') });
      await page.emulateMedia({ colorScheme: 'light' });
      if (summary.artifactLinks !== summary.api.artifacts.length) fail(`${summary.artifactLinks} artifact links for ${summary.api.artifacts.length} artifacts`);
      summary.runsListed = await page.locator(`#runs tr[data-run="${summary.runId}"]`).count();
      if (summary.runsListed !== 1) fail('the run is not in the runs list');

      // The parameters it ran with are shown; "Re-run with changes" opens a form generated from the
      // operations' catalog holding them, and a changed Kmax starts a new run that records it.
      summary.parametersShown = (await page.locator('.run-header .run-parameters-field').textContent())?.trim();
      if (kmax && summary.parametersShown !== `cluster.maxClusters=${kmax}`) fail(`the run header shows parameters "${summary.parametersShown}"`);
      await page.locator('.run-header button.rerun-changes').click();
      const kmaxField = page.locator('#rerun .parameter-step input[name="p-cluster-maxClusters"]');
      await kmaxField.waitFor({ timeout: 15_000 });
      summary.rerunForm = {
        fields: await page.locator('#rerun .parameter input, #rerun .parameter select').count(),
        kmax: await kmaxField.inputValue(),
        focused: await page.evaluate(() => document.activeElement?.closest('#rerun') !== null),
      };
      if (kmax && summary.rerunForm.kmax !== String(kmax)) fail(`the re-run form's Kmax holds "${summary.rerunForm.kmax}", the run ran with ${kmax}`);
      if (!summary.rerunForm.focused) fail('the re-run form did not take the focus');
      const changed = (Number(kmax) || 20) + 1;
      await kmaxField.fill(String(changed));
      await page.locator('.run-header').evaluate((node) => node.scrollIntoView());
      await page.screenshot({ path: screenshot.replace(/\.png$/, '-rerun.png') });
      await page.locator('#rerun button[type="submit"]').click();
      await page.waitForFunction((old) => /^#\/runs\/[^/]+/.test(location.hash) && !location.hash.includes(old), summary.runId, { timeout: 30_000 });
      const rerunId = decodeURIComponent((await page.evaluate(() => location.hash)).replace(/^#\/runs\//, ''));
      await page.waitForFunction((final) => final.includes(document.querySelector('#run-state')?.textContent.trim()), FINAL, { timeout: timeoutSeconds * 1000 });
      const rerun = await page.evaluate(async ([id, key]) => (await fetch(`/api/runs/${encodeURIComponent(id)}`, { headers: key ? { 'X-Api-Key': key } : {} })).json(), [rerunId, apiKey ?? null]);
      summary.rerun = { id: rerunId, state: rerun.state, rerunOf: rerun.rerunOf, parameters: rerun.parameters, shown: (await page.locator('.run-header .run-parameters-field').textContent())?.trim() };
      if (rerun.rerunOf !== summary.runId) fail(`the re-run's rerunOf is ${rerun.rerunOf}`);
      if (rerun.parameters?.['cluster.maxClusters'] !== changed) fail(`the re-run recorded cluster.maxClusters=${rerun.parameters?.['cluster.maxClusters']}, not ${changed}`);
      if (rerun.state !== 'succeeded') fail(`the re-run ended ${rerun.state}`);
      if (summary.rerun.shown !== `cluster.maxClusters=${changed}`) fail(`the re-run's header shows "${summary.rerun.shown}"`);

      // How it was made: the release, the digest of every output and file; "Reproduce" runs it
      // again exactly and the new run's card compares each with the recorded one.
      await page.locator('#provenance:not([hidden]) table.digests tbody tr').first().waitFor({ timeout: 15_000 });
      summary.provenance = {
        platform: (await page.locator('#provenance dl.meta dd').first().textContent())?.trim(),
        digests: await page.locator('#provenance table.digests tbody tr').count(),
      };
      if (summary.provenance.digests !== rerun.steps.reduce((n, step) => n + Object.keys(step.digests ?? {}).length, 0) + rerun.artifacts.length) fail(`the run shows ${summary.provenance.digests} digests`);
      if (!/^\d+\.\d+\.\d+/.test(summary.provenance.platform ?? '')) fail(`the run's platform reads "${summary.provenance.platform}"`);
      await page.locator('.run-header button.reproduce').click();
      await page.waitForFunction((old) => /^#\/runs\/[^/]+/.test(location.hash) && !location.hash.includes(old), rerunId, { timeout: 30_000 });
      await page.locator('#provenance .verdict-identical, #provenance .verdict-differs').waitFor({ timeout: timeoutSeconds * 1000 });
      summary.reproduction = {
        verdict: (await page.locator('#provenance .verdict').textContent())?.trim(),
        identical: await page.locator('#provenance table.digests td:last-child', { hasText: 'identical' }).count(),
        rows: await page.locator('#provenance table.digests tbody tr').count(),
        of: (await page.locator('.run-header dd a', { hasText: rerunId.slice(0, 8) }).count()),
      };
      if (!summary.reproduction.verdict?.startsWith('✓ Reproduced')) fail(`the reproduction says "${summary.reproduction.verdict}"`);
      if (summary.reproduction.identical !== summary.provenance.digests || summary.reproduction.rows !== summary.provenance.digests) fail(`the reproduction shows ${summary.reproduction.identical} of ${summary.reproduction.rows} identical (${summary.provenance.digests} recorded)`);
      if (summary.reproduction.of !== 1) fail('the reproduction does not link to the run it reproduces');
      await checkAccessibility(page, 'reproduction');
      await page.locator('#provenance').evaluate((node) => node.scrollIntoView());
      await page.screenshot({ path: screenshot.replace(/\.png$/, '-reproduce.png') });
    }
    const runHash = await page.evaluate(() => location.hash);
    await page.evaluate(() => { location.hash = '#/'; });
    await page.locator('.welcome').waitFor({ timeout: 10_000 });
    await checkAccessibility(page, 'home');
    // The header's services: every one serving or idle (embedded, started on first use).
    summary.services = await page.locator('#services-summary').textContent();
    if (!/serving/.test(summary.services)) fail(`the header's services read "${summary.services}"`);
    await page.evaluate((hash) => { location.hash = hash; }, runHash);
    if (summary.state === 'succeeded') await checkLayout(page);
  } catch (error) {
    fail(error.message.split('\n')[0]);
  }

  if (summary.pageErrors.length) fail(`uncaught errors in the page: ${summary.pageErrors.join('; ')}`);
  try {
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))); // the last frame painted
    await page.screenshot({ path: screenshot, fullPage: true });
    summary.screenshot = screenshot;
  } catch (error) {
    fail(`screenshot: ${error.message.split('\n')[0]}`);
  }
} finally {
  await browser.close();
}

summary.elapsedSeconds = Math.round((Date.now() - started) / 100) / 10;
finish(summary);
