// The gateway console's weight and first paint, measured in Debian's Chromium (playwright-core) on
// one or more gateways side by side: for each, `repeats` cold loads of the home page (a new browser
// context each: nothing cached) after one warm-up, in turns (A, B, A, B, …) so both see the same
// machine. Reports per gateway: the bytes on the wire (compressed as served) and decoded, the
// requests, and the medians of first paint, first contentful paint and DOMContentLoaded, with the
// spread. Prints one JSON document; with --out DIR also writes DIR/gateway-console.{json,md}.
// Usage: node console-weight.mjs [--out DIR] <repeats> <label>=<url> [<label>=<url> …]
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const out = outAt >= 0 ? args.splice(outAt, 2)[1] : null;
const [repeatsArg, ...targets] = args;
const repeats = Number(repeatsArg);
const gateways = targets.map((t) => {
  const at = t.indexOf('=');
  return { label: t.slice(0, at), url: t.slice(at + 1) };
});
if (!(repeats > 0) || gateways.length === 0 || gateways.some((g) => !g.label || !g.url)) {
  console.error('usage: node console-weight.mjs <repeats> <label>=<url> [<label>=<url> …]');
  process.exit(2);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function load(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  let wire = 0;
  let requests = 0;
  cdp.on('Network.loadingFinished', (event) => {
    wire += event.encodedDataLength;
    requests += 1;
  });
  await page.goto(url, { waitUntil: 'networkidle', timeout: 60_000 });
  const timing = await page.evaluate(() => {
    const paints = Object.fromEntries(performance.getEntriesByType('paint').map((p) => [p.name, p.startTime]));
    const navigation = performance.getEntriesByType('navigation')[0];
    // Decoded bytes of the page and of the files it loaded (the run list's and the services' JSON too).
    const decoded = [navigation, ...performance.getEntriesByType('resource')].reduce((sum, e) => sum + (e.decodedBodySize ?? 0), 0);
    return { firstPaint: paints['first-paint'], firstContentfulPaint: paints['first-contentful-paint'], domContentLoaded: navigation.domContentLoadedEventEnd, decoded };
  });
  await context.close();
  return { ...timing, wire, requests };
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  chromiumSandbox: false,
  args: ['--headless', '--no-sandbox'],
});
const chromiumVersion = browser.version();
const samples = new Map(gateways.map((g) => [g.label, []]));
try {
  for (const g of gateways) await load(browser, g.url); // warm-up: the servers' first requests
  for (let i = 0; i < repeats; i++) {
    for (const g of gateways) samples.get(g.label).push(await load(browser, g.url));
  }
} finally {
  await browser.close();
}

const summary = {
  run: new Date().toISOString(),
  repeats,
  machine: { cpu: os.cpus()[0]?.model, cores: os.cpus().length, memoryGiB: Math.round(os.totalmem() / 2 ** 30), kernel: os.release(), node: process.version, chromium: chromiumVersion },
  gateways: {},
};
for (const g of gateways) {
  const runs = samples.get(g.label);
  const stat = (key) => ({ median: Math.round(median(runs.map((r) => r[key])) * 10) / 10, min: Math.round(Math.min(...runs.map((r) => r[key])) * 10) / 10, max: Math.round(Math.max(...runs.map((r) => r[key])) * 10) / 10 });
  summary.gateways[g.label] = {
    url: g.url,
    wireBytes: median(runs.map((r) => r.wire)),
    decodedBytes: median(runs.map((r) => r.decoded)),
    requests: median(runs.map((r) => r.requests)),
    firstPaintMs: stat('firstPaint'),
    firstContentfulPaintMs: stat('firstContentfulPaint'),
    domContentLoadedMs: stat('domContentLoaded'),
  };
}
console.log(JSON.stringify(summary, null, 2));

if (out) {
  const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
  const ms = (stat) => `${stat.median} (${stat.min}–${stat.max})`;
  const rows = Object.entries(summary.gateways).map(([label, g]) =>
    `| ${label} | ${kb(g.wireBytes)} | ${kb(g.decodedBytes)} | ${g.requests} | ${ms(g.firstPaintMs)} | ${ms(g.firstContentfulPaintMs)} | ${ms(g.domContentLoadedMs)} |`);
  const markdown = `# gateway-console

The web console's home page (\`/\`: the page, its modules and stylesheet, and the API calls it makes
on load — workflows, runs, services, settings), loaded cold in headless Chromium ${chromiumVersion} (a new
browser context each time, nothing cached) from gateways on this machine, side by side: one warm-up
load each, then ${repeats} loads each in turns. Bytes on the wire are as served (compressed where the
gateway compresses); decoded bytes are what the page holds. Times are milliseconds from navigation
start, median (min–max).

Machine: ${summary.machine.cpu}, ${summary.machine.cores} logical cores, ${summary.machine.memoryGiB} GiB RAM; kernel ${summary.machine.kernel}; Node.js ${summary.machine.node}.

Run: ${summary.run.slice(0, 16).replace('T', ' ')} UTC. Command: \`node bench/console/console-weight.mjs --out bench/results ${repeats} ${Object.entries(summary.gateways).map(([l, g]) => `${l}=${g.url}`).join(' ')}\`.

| console | on the wire | decoded | requests | first paint ms | first contentful paint ms | DOMContentLoaded ms |
|---|---|---|---|---|---|---|
${rows.join('\n')}
`;
  await writeFile(path.join(out, 'gateway-console.json'), JSON.stringify(summary, null, 2));
  await writeFile(path.join(out, 'gateway-console.md'), markdown);
}
