// What a run made: its main figure (zoomed and panned in the viewer), its artifacts with their
// downloads, and the tables its steps produced (molecules drawn by RDKit, every row as CSV).

import { h, replace } from './dom.js';
import * as format from './format.js';
import { apiKey, artifactUrl, fetchBlobUrl } from './api.js';
import { openViewer } from './viewer.js';
import { ACTIVE } from './run.js';

const TABLE_ROW_LIMIT = 500;
const RESULT_IMAGES = ['map.svg', 'scatter.svg', 'map.png', 'scatter.png'];
/** Figures shown beside the main one when a run has them. */
const EXTRA_IMAGES = ['molecules.svg'];

export function renderResult(current) {
  const run = current.run;
  const artifacts = run?.artifacts ?? [];
  const signature = `${run?.state}|${artifacts.map((a) => `${a.name}:${a.size}`).join(',')}`;
  if (current.signatures.result === signature) return;
  current.signatures.result = signature;
  const image = RESULT_IMAGES.map((name) => artifacts.find((a) => a.name === name)).find(Boolean)
    ?? artifacts.find((a) => /^image\//.test(a.contentType ?? ''));
  const figure = image
    ? h('figure', { class: 'result-figure' },
      figureButton(run, image),
      h('figcaption', { class: 'muted' }, `${image.name} · ${format.bytes(image.size)} · `, artifactDownload(run.id, image.name, 'download')))
    : h('div', { class: 'result-empty muted' }, ACTIVE.has(run?.state) ? 'The result appears when the run has it.' : 'This run kept no image.');
  const list = artifacts.length
    ? h('ul', { class: 'artifacts' }, artifacts.map((a) => h('li', {},
      artifactLink(run.id, a.name, a.name),
      h('span', { class: 'muted' }, ` ${a.contentType ?? ''}`),
      h('span', { class: 'size' }, format.bytes(a.size)),
      a.step ? h('span', { class: 'muted' }, ` · ${a.step}`) : null,
      artifactDownload(run.id, a.name, '⤓', `download ${a.name}`))))
    : h('p', { class: 'muted' }, 'No artifacts yet.');
  const extras = EXTRA_IMAGES.map((name) => artifacts.find((a) => a.name === name)).filter(Boolean)
    .map((extra) => h('figure', { class: 'result-figure extra-figure' },
      figureButton(run, extra),
      h('figcaption', { class: 'muted' }, `${extra.name} · ${format.bytes(extra.size)} · `, artifactDownload(run.id, extra.name, 'download'))));
  replace(current.el.result, h('div', { class: 'result' }, figure, h('div', { class: 'artifacts-box' }, h('h3', {}, 'Artifacts'), list)), extras);
}

/** A link to a file of the run: with an API key, opened from a fetched copy (a plain link cannot send the key). */
function artifactLink(runId, name, content) {
  return gatewayLink(artifactUrl(runId, name), {}, content);
}

/** A link to a file of the gateway opened in a new tab (with an API key, from a fetched copy: a link cannot send it). */
export function gatewayLink(url, attributes, content) {
  return h('a', {
    ...attributes,
    href: url,
    target: '_blank',
    rel: 'noopener',
    onclick: (event) => {
      if (!apiKey()) return;
      event.preventDefault();
      fetchBlobUrl(url).then((blob) => window.open(blob, '_blank', 'noopener')).catch(() => {});
    },
  }, content);
}

/** A download link of a file of the run (with an API key, saved from a fetched copy). */
function artifactDownload(runId, name, text, label) {
  const url = artifactUrl(runId, name);
  return h('a', {
    href: url,
    download: name,
    class: 'download',
    'aria-label': label ?? `download ${name}`,
    onclick: (event) => {
      if (!apiKey()) return;
      event.preventDefault();
      fetchBlobUrl(url).then((blob) => saveUrl(blob, name)).catch(() => {});
    },
  }, text);
}

function saveUrl(url, name) {
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
}

/**
 * A figure of the run as a button: opens the viewer (zoom and pan) with the figure's downloads —
 * the figure, and for a map its PNG and GeoJSON when the run kept them.
 */
function figureButton(run, artifact) {
  const names = [artifact.name];
  const stem = artifact.name.replace(/\.[^.]+$/, '');
  for (const other of run.artifacts ?? []) {
    if (other.name !== artifact.name && (other.name.startsWith(`${stem}.`) || (stem === 'map' && other.name.endsWith('.geojson')))) names.push(other.name);
  }
  const image = artifactImage(run.id, artifact.name);
  return h('button', {
    type: 'button',
    class: 'figure-button',
    'aria-label': `${artifact.name}: open at full size`,
    onclick: () => openViewer({
      src: image.src,
      title: artifact.name,
      links: names.map((name) => artifactDownload(run.id, name, name.split('.').pop().toUpperCase(), `download ${name}`)),
    }),
  }, image);
}

function artifactImage(runId, name) {
  const alt = `${name} of run ${runId}`;
  if (!apiKey()) return h('img', { src: artifactUrl(runId, name), alt, decoding: 'async' });
  const image = h('img', { alt, decoding: 'async' });
  fetchBlobUrl(artifactUrl(runId, name)).then((blob) => { image.src = blob; }).catch(() => {});
  return image;
}

/** RDKit's drawing of a molecule, from the gateway (fetched with the key when there is one). */
function depictionImage(smiles) {
  const url = `/api/depictions?${new URLSearchParams({ smiles, width: 140, height: 100 })}`;
  if (!apiKey()) return h('img', { src: url, alt: smiles, title: smiles, width: 140, height: 100, loading: 'lazy', decoding: 'async' });
  const image = h('img', { alt: smiles, title: smiles, width: 140, height: 100, decoding: 'async' });
  fetchBlobUrl(url).then((blob) => { image.src = blob; }).catch(() => {});
  return image;
}

export function renderClusters(current) {
  const steps = (current.run?.steps ?? []).filter((st) => Array.isArray(st.outputs?.table) && st.outputs.table.length > 0);
  const signature = steps.map((st) => `${st.id}:${st.state}:${st.outputs.table.length}`).join(',');
  if (current.signatures.clusters === signature) return;
  current.signatures.clusters = signature;
  current.el.clustersCard.querySelector('h2').textContent = steps.length > 1 || steps.some((st) => st.id !== 'cluster') ? 'Tables' : 'Clusters';
  if (steps.length === 0) {
    replace(current.el.clusters, h('p', { class: 'muted' }, ACTIVE.has(current.run?.state) ? 'Tables appear as steps finish.' : 'No step produced a table.'));
    return;
  }
  replace(current.el.clusters, h('div', { class: 'tables' }, steps.map((step) => tableOf(step, unitsOf(step, current.run.steps)))));
}

/**
 * The units of a table's columns where the data says them: a clustering of a census query's points
 * has its centres in that query's planar kilometres (equirectangular about the selection's centre).
 */
function unitsOf(step, steps) {
  const readsQuery = (step.dependsOn ?? []).some((id) => steps.some((st) => st.id === id && st.service === 'census' && st.operation === 'query'));
  return readsQuery
    ? { x: ['km east', "kilometres east of the selection's centre (the census query's equirectangular projection)"], y: ['km north', "kilometres north of the selection's centre"] }
    : {};
}

function tableOf(step, units = {}) {
  const rows = step.outputs.table;
  const columns = [];
  for (const row of rows) for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  const numeric = new Set(columns.filter((c) => rows.every((r) => r[c] === null || r[c] === undefined || typeof r[c] === 'number')));
  const shown = rows.slice(0, TABLE_ROW_LIMIT);
  const cell = (value) => (value !== null && typeof value === 'object' ? JSON.stringify(value) : typeof value === 'number' ? format.number(value) : value ?? '–');
  // A table of molecules (search hits) shows each as RDKit draws it.
  const depicted = columns.includes('smiles');
  const depiction = (smiles) => (smiles ? depictionImage(smiles) : '–');
  return h('div', { class: 'table-box', dataset: { step: step.id } },
    h('h3', {}, step.id, h('span', { class: 'muted' }, ` · ${rows.length} row${rows.length === 1 ? '' : 's'} · `),
      h('button', { type: 'button', class: 'link csv', 'aria-label': `download ${step.id} as CSV`, onclick: () => saveCsv(`${step.id}.csv`, columns, rows) }, 'CSV')),
    h('div', { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': `${step.id} table` }, h('table', { class: 'data-table' },
      h('thead', {}, h('tr', {}, depicted ? h('th', { scope: 'col' }, 'structure') : null, columns.map((c) => h('th', { scope: 'col', class: numeric.has(c) ? 'num' : '', title: units[c]?.[1] }, c, units[c] ? h('span', { class: 'unit' }, ` (${units[c][0]})`) : null)))),
      h('tbody', {}, shown.map((row) => h('tr', {},
        depicted ? h('td', { class: 'depiction' }, depiction(row.smiles)) : null,
        columns.map((c) => h('td', { class: numeric.has(c) ? 'num' : '', title: typeof row[c] === 'number' ? String(row[c]) : '' }, cell(row[c])))))))),
    rows.length > shown.length ? h('p', { class: 'muted small' }, `first ${shown.length} of ${rows.length} rows`) : null);
}

/** Every row of a table (not only those shown) as a CSV file (RFC 4180 quoting). */
export function csvOf(columns, rows) {
  const cell = (value) => {
    const text = value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return [columns.map(cell).join(','), ...rows.map((row) => columns.map((c) => cell(row[c])).join(','))].join('\r\n') + '\r\n';
}

function saveCsv(name, columns, rows) {
  const url = URL.createObjectURL(new Blob([csvOf(columns, rows)], { type: 'text/csv' }));
  saveUrl(url, name);
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
