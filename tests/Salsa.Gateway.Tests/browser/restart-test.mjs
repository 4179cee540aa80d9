// A page following a run while its gateway is killed and started again: starts the workflow from
// its card, waits until the run is followed live, writes the run's id to <signal file> (the test
// then kills the gateway and starts another on the same ports), and waits for the page to leave its
// live state, come back to it by itself and show the resumed run's end. Prints one JSON summary.
// Usage: node restart-test.mjs <gateway url> <workflow> <signal file> <timeout seconds>
// Exits 0 when every check passed, 1 when one failed, 2 on bad arguments.
import { writeFile } from 'node:fs/promises';
import { launchChromium, finish } from './common.mjs';

const [url, workflow, signal, timeoutArg] = process.argv.slice(2);
const timeoutSeconds = Number(timeoutArg);
if (!url || !workflow || !signal || !(timeoutSeconds > 0)) {
  console.error('usage: node restart-test.mjs <gateway url> <workflow> <signal file> <timeout seconds>');
  process.exit(2);
}

const FINAL = ['succeeded', 'failed', 'cancelled', 'interrupted'];
const summary = { ok: false, failures: [], pageErrors: [], runStreams: 0, listStreams: 0, streamStates: [] };
const fail = (message) => summary.failures.push(message);

const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('pageerror', (error) => summary.pageErrors.push(String(error)));
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (path === '/api/runs/events') summary.listStreams += 1;
    else if (/^\/api\/runs\/[^/]+\/events$/.test(path)) summary.runStreams += 1;
  });
  try {
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 30_000 });
    const start = page.locator(`#workflows [data-workflow="${workflow}"] button.start`);
    await start.waitFor({ timeout: 30_000 });
    await start.click();
    await page.waitForFunction(() => /^#\/runs\/[^/]+/.test(location.hash), null, { timeout: 30_000 });
    summary.runId = decodeURIComponent((await page.evaluate(() => location.hash)).replace(/^#\/runs\//, ''));
    // Every state the stream indicator goes through, as the page shows it.
    await page.exposeFunction('__streamState', (state) => summary.streamStates.push(state));
    await page.evaluate(() => {
      let last = '';
      const look = () => {
        const text = document.querySelector('.run-header .stream')?.className.replace(/^stream stream-/, '') ?? '';
        if (text && text !== last) {
          last = text;
          window.__streamState(text);
        }
      };
      new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true });
      look();
    });
    await page.locator('.run-header .stream-live').waitFor({ timeout: 30_000 });
    await writeFile(signal, summary.runId);

    // The gateway goes away: the page says so (reconnecting or polling), then is live again.
    await page.waitForFunction(() => !document.querySelector('.run-header .stream-live') || document.querySelector('#run-state')?.textContent.trim() !== 'running',
      null, { timeout: timeoutSeconds * 1000 });
    try {
      await page.waitForFunction((final) => final.includes(document.querySelector('#run-state')?.textContent.trim()), FINAL, { timeout: timeoutSeconds * 1000 });
    } catch (error) {
      fail(`the run did not end on the page within ${timeoutSeconds} s (stream states: ${summary.streamStates.join(' → ')})`);
    }
    summary.state = (await page.locator('#run-state').textContent())?.trim();
    summary.resumes = await page.locator('.run-header .field').filter({ hasText: 'resumes' }).locator('dd').textContent({ timeout: 5000 }).catch(() => null);
    const states = summary.streamStates;
    const away = states.findIndex((st) => st === 'reconnecting' || st === 'polling');
    // Back on a live stream: shown as live, or — when the resumed run had already ended by the time
    // the stream was opened again — that new stream's first event was the run's end, drawn in the
    // same task as "live" (so never seen apart): a second stream was opened and it, not a poll, ended it.
    summary.liveAgain = away >= 0 && (states.slice(away).includes('live')
      || (summary.runStreams >= 2 && !states.slice(away).includes('polling') && states.at(-1) === 'ended'));
    if (away < 0) fail(`the page never showed the gateway gone (stream states: ${states.join(' → ')})`);
    else if (!summary.liveAgain) fail(`the page did not go back to its live stream (stream states: ${states.join(' → ')})`);
    if (summary.state !== 'succeeded') fail(`the run ended ${summary.state}`);
    // The runs list shows the run's end too (its stream came back, or its fallback reload did).
    await page.waitForFunction((id) => document.querySelector(`#runs tr[data-run="${id}"] .badge`)?.textContent === 'succeeded', summary.runId, { timeout: 30_000 })
      .catch(() => fail('the runs list does not show the run succeeded'));
  } catch (error) {
    fail(error.message.split('\n')[0]);
  }
  if (summary.pageErrors.length) fail(`uncaught errors in the page: ${summary.pageErrors.join('; ')}`);
} finally {
  await browser.close();
}

finish(summary);
