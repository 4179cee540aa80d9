// Your datasets (#/datasets): the tenant's uploads, imports and what runs made of them, filtered by
// kind and name, 50 a page — each with its size, when it was made, the runs that used it, and what
// can be done with it: start its workflow, rename it, delete it (GET, PATCH, DELETE /api/datasets).
// Also the names the runs list shows for the datasets its runs name.

import { $, h, replace } from './dom.js';
import * as format from './format.js';
import { api, authHeaders } from './api.js';
import { badge } from './runs.js';
import { watchField } from './fields.js';

const PAGE = 50;

/** The workflow that starts on a dataset of this kind (its import step reads `import.dataset`). */
const WORKFLOW_OF = { census: 'census-places', compounds: 'chem-compounds' };

const KINDS = [['', 'any'], ['census', 'places (census)'], ['compounds', 'compounds'], ['binary', 'fingerprints'], ['dense', 'points']];

/** Dataset id → name, as far as the console has read them. */
const names = new Map();
let namesRead = null;

/** The names of the caller's newest datasets (read once, and again after a change here or an upload). */
export function datasetNames({ again = false } = {}) {
  if (again || !namesRead) {
    namesRead = api(`/api/datasets?limit=200`).then((list) => {
      for (const dataset of list) names.set(dataset.datasetId, dataset.name);
      return names;
    }).catch(() => names);
  }
  return namesRead;
}

/** The filters and page from the address: #/datasets?kind=&name=&offset=. */
function queryFromAddress() {
  const query = new URLSearchParams(location.hash.split('?')[1] ?? '');
  const kind = KINDS.some(([value]) => value === query.get('kind')) ? query.get('kind') : '';
  return { kind, name: (query.get('name') ?? '').slice(0, 200), offset: Math.max(0, Number.parseInt(query.get('offset') ?? '0', 10) || 0) };
}

function addressOf(query) {
  const search = new URLSearchParams();
  if (query.kind) search.set('kind', query.kind);
  if (query.name) search.set('name', query.name);
  if (query.offset) search.set('offset', String(query.offset));
  const text = search.toString();
  return `#/datasets${text ? `?${text}` : ''}`;
}

/** Draws the datasets page into the main pane, then reads the page of datasets the address asks for. */
export function openDatasets() {
  const query = queryFromAddress();
  const kind = h('select', { id: 'datasets-kind', name: 'kind' }, KINDS.map(([value, text]) => h('option', { value }, text)));
  kind.value = query.kind;
  const name = h('input', { id: 'datasets-name', name: 'name', type: 'search', value: query.name, placeholder: 'part of a name', spellcheck: 'false', maxlength: 200 });
  const go = (changes) => { location.hash = addressOf({ ...queryFromAddress(), ...changes }); };
  const form = h('form', { class: 'datasets-filter', role: 'search', 'aria-label': 'Filter the datasets', onsubmit: (event) => { event.preventDefault(); go({ kind: kind.value, name: name.value.trim(), offset: 0 }); } },
    h('label', {}, 'Kind ', kind), h('label', {}, 'Name ', name), h('button', { type: 'submit', class: 'secondary' }, 'Filter'));
  kind.addEventListener('change', () => go({ kind: kind.value, offset: 0 }));
  replace($('#view'), h('section', { class: 'card datasets', 'aria-labelledby': 'datasets-heading' },
    h('h1', { id: 'datasets-heading' }, 'Your datasets ', h('span', { id: 'datasets-count', class: 'muted' })),
    h('p', { class: 'muted' }, 'What you uploaded, imported, and what your runs made of it. Upload a file with Your data; a dataset in use by a queued or running run cannot be deleted.'),
    form,
    h('div', { id: 'datasets-message', role: 'status', class: 'form-message' }),
    h('div', { id: 'datasets-list', class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': 'Datasets' }, h('p', { class: 'muted' }, 'loading…')),
    h('nav', { class: 'pager', 'aria-label': 'Datasets pages' },
      h('button', { id: 'datasets-newer', type: 'button', class: 'secondary', disabled: true, onclick: () => go({ offset: Math.max(0, query.offset - PAGE) }) }, '← Newer'),
      h('span', { id: 'datasets-page', class: 'muted small', 'aria-live': 'polite' }),
      h('button', { id: 'datasets-older', type: 'button', class: 'secondary', disabled: true, onclick: () => go({ offset: query.offset + PAGE }) }, 'Older →'))));
  loadPage(query);
}

async function loadPage(query) {
  const search = new URLSearchParams({ limit: PAGE, offset: query.offset });
  if (query.kind) search.set('kind', query.kind);
  if (query.name) search.set('name', query.name);
  const list = $('#datasets-list');
  try {
    const response = await fetch(`/api/datasets?${search}`, { headers: { Accept: 'application/json', ...authHeaders() }, cache: 'no-store' });
    if (!response.ok) {
      const problem = await response.json().catch(() => null);
      throw new Error(`${response.status} ${problem?.detail ?? problem?.title ?? response.statusText}`);
    }
    const datasets = await response.json();
    const total = Number(response.headers.get('X-Total-Count') ?? datasets.length);
    if (!list.isConnected) return;
    for (const dataset of datasets) names.set(dataset.datasetId, dataset.name);
    $('#datasets-count').textContent = `(${format.number(total)})`;
    $('#datasets-page').textContent = datasets.length ? `${format.number(query.offset + 1)}–${format.number(query.offset + datasets.length)} of ${format.number(total)}` : '';
    $('#datasets-newer').disabled = query.offset === 0;
    $('#datasets-older').disabled = query.offset + datasets.length >= total;
    replace(list, datasets.length
      ? h('table', { class: 'datasets-table' },
        h('caption', { class: 'visually-hidden' }, 'Your datasets, newest first'),
        h('thead', {}, h('tr', {}, ['name', 'kind', 'rows', 'size', 'created', 'used by', ''].map((text, k) => h('th', { scope: 'col', class: k === 2 || k === 3 ? 'num' : '' }, text)))),
        h('tbody', {}, datasets.map((dataset) => datasetRow(dataset, query))))
      : h('p', { class: 'muted' }, query.kind || query.name ? 'No dataset matches these filters.' : 'No datasets yet: upload a file with Your data, or start a workflow.'));
  } catch (error) {
    if (list.isConnected) replace(list, h('p', { class: 'error' }, `Datasets: ${error.message}`));
  }
}

function say(text, error = false) {
  const box = $('#datasets-message');
  if (!box) return;
  box.className = `form-message${error ? ' error' : ''}`;
  box.textContent = text;
}

function datasetRow(dataset, query) {
  const workflow = WORKFLOW_OF[dataset.kind];
  const runs = dataset.runs ?? [];
  const nameCell = h('td', { class: 'dataset-name' }, h('span', { class: 'mono' }, dataset.name), h('div', { class: 'muted small', title: dataset.datasetId }, `${format.short(dataset.datasetId)} · ${dataset.source.replace(/([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '$1…')}`));
  const rename = h('button', { type: 'button', class: 'secondary small', 'aria-label': `Rename ${dataset.name}`, onclick: () => startRename(dataset, nameCell, query) }, 'Rename');
  const remove = h('button', {
    type: 'button', class: 'secondary small', 'aria-label': `Delete ${dataset.name}`,
    onclick: async (event) => {
      if (!confirm(`Delete the dataset ${dataset.name} (${format.number(dataset.count)} rows)? Runs that used it keep their results.`)) return;
      event.target.disabled = true;
      try {
        await api(`/api/datasets/${encodeURIComponent(dataset.datasetId)}`, { method: 'DELETE' });
        names.delete(dataset.datasetId);
        say(`Deleted ${dataset.name}.`);
        loadPage(query);
      } catch (error) {
        say(`${dataset.name} was not deleted: ${error.problem?.detail ?? error.message}`, true);
        event.target.disabled = false;
      }
    },
  }, 'Delete');
  const start = workflow
    ? h('button', {
      type: 'button', class: 'small', 'aria-label': `Start ${workflow} on ${dataset.name}`,
      onclick: async (event) => {
        event.target.disabled = true;
        try {
          const run = await api('/api/runs', { method: 'POST', body: { workflow, parameters: { 'import.dataset': dataset.datasetId, 'import.file': '' } } });
          location.hash = `#/runs/${run.id}`;
        } catch (error) {
          say(`${workflow} did not start: ${error.problem?.detail ?? error.message}`, true);
          event.target.disabled = false;
        }
      },
    }, `Start ${workflow}`)
    : null;
  return h('tr', { dataset: { dataset: dataset.datasetId } },
    nameCell,
    h('td', {}, dataset.kind, dataset.rdkitVersion ? h('div', { class: 'muted small' }, `RDKit ${dataset.rdkitVersion}`) : null),
    h('td', { class: 'num' }, format.number(dataset.count)),
    h('td', { class: 'num' }, format.bytes(dataset.bytes)),
    h('td', { title: dataset.created }, format.time(dataset.created)),
    h('td', { class: 'dataset-runs' }, runs.length
      ? [runs.slice(0, 3).map((run) => h('a', { href: `#/runs/${run.runId}`, class: 'dataset-run', title: `${run.workflow} run of ${run.created}` }, badge(run.state), ' ', `${run.workflow ?? 'run'} ${format.time(run.created)}`)),
        runs.length > 3 ? h('span', { class: 'muted small' }, ` +${runs.length - 3}`) : null]
      : h('span', { class: 'muted small' }, 'none')),
    h('td', { class: 'dataset-actions' }, start, rename, remove));
}

/** The name's cell as a field: Enter or Save renames (PATCH), Escape or Cancel leaves it as it was. */
function startRename(dataset, cell, query) {
  const id = `rename-${dataset.datasetId}`;
  const input = h('input', { id, type: 'text', value: dataset.name, maxlength: 200, spellcheck: 'false', 'aria-label': `New name for ${dataset.name}` });
  const check = watchField(input, () => (input.value.trim() ? null : 'A dataset needs a name.'));
  const cancel = () => loadPage(query);
  const save = async () => {
    if (check.check()) return;
    try {
      await api(`/api/datasets/${encodeURIComponent(dataset.datasetId)}`, { method: 'PATCH', body: { name: input.value.trim() } });
      names.set(dataset.datasetId, input.value.trim());
      say(`Renamed to ${input.value.trim()}.`);
      loadPage(query);
    } catch (error) {
      check.mark(error.problem?.detail ?? error.message);
    }
  };
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') save();
    if (event.key === 'Escape') cancel();
  });
  replace(cell, input, check.error, h('div', { class: 'rename-actions' },
    h('button', { type: 'button', class: 'small', onclick: save }, 'Save'),
    h('button', { type: 'button', class: 'secondary small', onclick: cancel }, 'Cancel')));
  input.focus();
  input.select();
}
