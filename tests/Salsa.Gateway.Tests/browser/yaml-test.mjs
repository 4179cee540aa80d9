// The workflow's file, shown read-only with line numbers: on a workflow's card (GET
// /api/workflows/{name}) and, for a run, the text it ran and its workflow as it ran it, every
// parameter applied (GET /api/runs/{id}/workflow). axe at zero violations with them open,
// at 390, 1440 and 1920 px, light and dark.
// Usage: node yaml-test.mjs <gateway-url>
import { axeEverySize, begin, finish } from './common.mjs';

const [base] = process.argv.slice(2);
const root = base.replace(/\/$/, '');
const { summary, fail, browser } = await begin({ axe: {} });
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('pageerror', (error) => fail(`page error: ${error.message}`));
  await page.goto(root, { waitUntil: 'load' });
  const card = page.locator('.workflow[data-workflow="census-indiana"]');
  await card.locator('.workflow-yaml summary').click();
  const lines = card.locator('pre.code-lines .line');
  await lines.first().waitFor({ timeout: 10_000 });
  const yaml = await page.evaluate(async () => (await (await fetch('/api/workflows/census-indiana')).json()).yaml);
  summary.card = {
    lines: await lines.count(),
    expected: yaml.replace(/\n$/, '').split('\n').length,
    numbered: await lines.nth(1).evaluate((line) => getComputedStyle(line, '::before').content),
    copied: await card.locator('pre.code-lines').evaluate((pre) => pre.textContent),
  };
  if (summary.card.lines !== summary.card.expected) fail(`the card shows ${summary.card.lines} lines of ${summary.card.expected}`);
  if (!/counter\(line\)/.test(summary.card.numbered)) fail(`lines are not numbered: ${summary.card.numbered}`);
  if (summary.card.copied.trimEnd() !== yaml.trimEnd()) fail('the text as copied is not the workflow file');
  delete summary.card.copied;

  // A run with an override: the text it ran, and as it ran with every parameter.
  const run = await page.evaluate(async () => {
    const started = await (await fetch('/api/runs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ workflow: 'census-indiana', parameters: { 'cluster.maxClusters': 5 } }) })).json();
    for (let state = started.state; state === 'queued' || state === 'running';) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      state = (await (await fetch(`/api/runs/${started.id}`)).json()).state;
    }
    return started.id;
  });
  {
    const look = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await look.goto(`${root}/#/runs/${run}`, { waitUntil: 'load' });
    const texts = look.locator('#provenance details.workflow-text');
    await texts.nth(1).waitFor({ timeout: 15_000 });
    await texts.nth(0).locator('summary').click();
    await texts.nth(1).locator('summary').click();
    await texts.nth(1).locator('pre.code-lines').waitFor({ timeout: 10_000 });
    const ran = await texts.nth(1).locator('pre.code-lines').textContent();
    summary.asRan = { maxClusters: /\n\s+maxClusters: 5\n/.test(ran), defaultApplied: /\n\s+coolingFactor: 0\.95\n/.test(ran), retry: /retry: \{ attempts: 3, backoff: 1s \}/.test(ran) };
    if (!Object.values(summary.asRan).every(Boolean)) fail(`as it ran: ${JSON.stringify(summary.asRan)}`);
    await look.locator('.workflow[data-workflow="census-indiana"] .workflow-yaml summary').click();
    await look.locator('.workflow[data-workflow="census-indiana"] pre.code-lines').waitFor({ timeout: 10_000 });
    summary.axe = await axeEverySize(look, 'the workflow files open', fail);
    await look.close();
  }
} catch (error) {
  fail(error.message.split('\n')[0]);
} finally {
  await browser.close();
}
finish(summary);
