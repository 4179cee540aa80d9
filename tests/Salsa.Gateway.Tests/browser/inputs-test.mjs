// Bad numbers never start a run: typed into a workflow card's Kmax or into a workflow's parameters
// form, "1e", "--", a fraction, a value past the catalog's bounds or a number of 20 digits marks the
// field (aria-invalid) with its message beside it in words, and no POST /api/runs is sent; a good
// value still starts the run. Every Start button has a name of its own. axe at zero violations with
// a field marked, at 390, 1440 and 1920 px, light and dark. A query SMILES RDKit cannot read is refused at its field before any step runs.
// Usage: node inputs-test.mjs <gateway-url>
import { axeEverySize, begin, finish } from './common.mjs';

const [base] = process.argv.slice(2);
const { summary, fail, browser } = await begin({ cases: [] });
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const started = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/runs') started.push(request.postData());
  });
  page.on('pageerror', (error) => fail(`page error: ${error.message}`));
  await page.goto(base, { waitUntil: 'domcontentloaded' });
  const card = page.locator('.workflow[data-workflow="census-indiana"]');
  await card.locator('button.start').waitFor({ timeout: 15_000 });

  // Each Start button is named by its workflow.
  const names = await page.locator('.workflow button.start').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label') ?? b.textContent.trim()));
  summary.startNames = names;
  if (new Set(names).size !== names.length) fail(`Start buttons share names: ${names.join(', ')}`);
  if (await page.getByRole('button', { name: 'Start census-indiana', exact: true }).count() !== 1) fail('no button named "Start census-indiana"');

  const kmax = card.locator('input.kmax');
  const check = async (where, field, button, text, wanted) => {
    await field.fill('');
    await field.click();
    await field.pressSequentially(text);
    await button.click();
    await page.waitForTimeout(400);
    const invalid = await field.getAttribute('aria-invalid');
    const described = (await field.getAttribute('aria-describedby')) ?? '';
    const errorId = described.split(' ').find((id) => id.endsWith('-error'));
    const message = errorId ? ((await page.locator(`[id="${errorId}"]`).textContent()) ?? '').trim() : '';
    const focused = await field.evaluate((node) => document.activeElement === node);
    summary.cases.push({ where, text, invalid, message, focused });
    if (invalid !== 'true') fail(`${where} "${text}": the field is not marked invalid`);
    if (!wanted.test(message)) fail(`${where} "${text}": the message reads "${message}"`);
    if (/line \d|yaml|:\d+:\d+/i.test(message)) fail(`${where} "${text}": the message speaks of YAML positions: "${message}"`);
    if (!focused) fail(`${where} "${text}": the field does not have the focus`);
  };
  const start = card.locator('button.start');
  await check('Kmax', kmax, start, '1e', /Kmax must be a number/);
  await check('Kmax', kmax, start, '--', /Kmax must be a number/);
  await check('Kmax', kmax, start, '2.5', /Kmax must be a whole number/);
  await check('Kmax', kmax, start, '0', /Kmax must be at least 1/);
  await check('Kmax', kmax, start, '99999999999999999999', /Kmax must be at most \d+|too large/);
  summary.axeMarked = await axeEverySize(page, 'a field marked', fail);

  // The parameters form of the same card: the cluster step's maxClusters.
  await card.locator('details.start-form > summary').click();
  const field = card.locator('input[name="p-cluster-maxClusters"]');
  await field.waitFor({ timeout: 15_000 });
  const submit = card.locator('form.parameter-form button[type="submit"]');
  await check('form', field, submit, '1e', /cluster · maxClusters must be a number/);
  await check('form', field, submit, '0', /cluster · maxClusters must be at least 1/);
  summary.formMessage = (await card.locator('form.parameter-form .form-message').textContent())?.trim();
  if (!/maxClusters/.test(summary.formMessage ?? '')) fail(`the form's message reads "${summary.formMessage}"`);
  if (started.length) fail(`bad values started ${started.length} run(s): ${started.join(' | ')}`);

  // A refusal only the gateway can make (the value changed on its way, as a stale page would send
  // it): placed at the field it names, in words, once, without the workflow's line and column.
  await page.route('**/api/runs', async (route) => {
    const body = JSON.parse(route.request().postData());
    body.parameters['cluster.maxClusters'] = 0;
    await route.continue({ postData: JSON.stringify(body) });
  }, { times: 1 });
  await field.fill('');
  await field.pressSequentially('5');
  await submit.click();
  await page.waitForFunction(() => document.querySelector('input[name="p-cluster-maxClusters"]')?.getAttribute('aria-invalid') === 'true', null, { timeout: 15_000 });
  summary.refusal = {
    field: (await card.locator('#p-cluster-maxClusters-error').textContent())?.trim(),
    form: (await card.locator('form.parameter-form .form-message').textContent())?.trim(),
  };
  if (!/^cluster · maxClusters is 0; it must be at least 1$/.test(summary.refusal.field ?? '')) fail(`the refused field says "${summary.refusal.field}"`);
  if (summary.refusal.form !== 'The gateway refused the marked value.') fail(`the form says "${summary.refusal.form}"`);
  if (/\d+:\d+|line/.test(`${summary.refusal.field} ${summary.refusal.form}`)) fail('the refusal shows YAML positions');
  const refusedPosts = started.length;
  started.length = 0;
  if (refusedPosts !== 1) fail(`the refused value was posted ${refusedPosts} times`);

  // Corrected, the mark goes as it is typed, and the run starts with the value.
  await field.fill('');
  await field.pressSequentially('7');
  summary.clearedAfterTyping = await field.getAttribute('aria-invalid');
  if (summary.clearedAfterTyping === 'true') fail('a good value typed leaves the field marked');
  await submit.click();
  await page.waitForFunction(() => /^#\/runs\/[^/]+/.test(location.hash), null, { timeout: 30_000 });
  summary.started = started.map((body) => JSON.parse(body));
  if (started.length !== 1 || summary.started[0]?.parameters?.['cluster.maxClusters'] !== 7) fail(`the good value started ${JSON.stringify(summary.started)}`);

  // A query molecule RDKit cannot read is refused when the run is submitted, at its field, before
  // any step ran (it failed the search after the import, fingerprints and clustering).
  await page.goto(base, { waitUntil: 'load' });
  const chem = page.locator('.workflow[data-workflow="chem-compounds"]');
  await chem.locator('details.start-form > summary').click();
  const smiles = chem.locator('input[name="p-search-querySmiles"]');
  await smiles.waitFor({ timeout: 15_000 });
  await smiles.fill('C1CC');
  await chem.locator('form.parameter-form button[type="submit"]').click();
  await page.waitForFunction(() => document.querySelector('input[name="p-search-querySmiles"]')?.getAttribute('aria-invalid') === 'true', null, { timeout: 15_000 });
  summary.molecule = (await chem.locator('#p-search-querySmiles-error').textContent())?.trim();
  if (!/^search · querySmiles is not a molecule RDKit can read: .*unclosed ring/.test(summary.molecule ?? '')) fail(`the refused molecule says "${summary.molecule}"`);
  if (/^#\/runs\//.test(await page.evaluate(() => location.hash))) fail('a molecule RDKit cannot read opened a run');
} catch (error) {
  fail(error.message.split('\n')[0]);
} finally {
  await browser.close();
}
finish(summary);
