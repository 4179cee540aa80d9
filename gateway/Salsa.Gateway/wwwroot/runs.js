// The runs: a page of them as a list or as Airflow's grid, filtered by workflow, state and days,
// kept current by the runs' event stream (GET /api/runs, GET /api/runs/events).

import { $, h, replace } from './dom.js';
import * as format from './format.js';
import { askForKey, authHeaders, connection, eventSource } from './api.js';
import { parameterChips } from './parameters.js';
import { watchField } from './fields.js';

/** The runs list follows the runs' event stream; without it, it is reloaded this often. */
const RUNS_FALLBACK_MS = 15000;
const RUNS_PAGE = 50;

export const badge = (state, attributes = {}) => h('span', { ...attributes, class: `badge state-${state ?? 'unknown'}` }, state ?? '?');

/** Dataset id → name for the chips (an upload's name, not its id); read once a run on the page names a dataset. */
let datasetNameMap = new Map();
let namesAsked = false;

function renderRuns(runs, total) {
  // A run that names a dataset (import.dataset) shows its name: read the names once, then draw again.
  if (!namesAsked && runs.some((run) => Object.values(run.parameters ?? {}).some((value) => typeof value === 'string' && format.GUID.test(value)))) {
    namesAsked = true;
    import('./datasets.js').then(({ datasetNames }) => datasetNames()).then((map) => {
      datasetNameMap = map;
      if ($('#runs table, #runs .grid-block')) renderRuns(runs, total);
    });
  }
  const first = runsQuery.offset + 1;
  const last = runsQuery.offset + runs.length;
  $('#runs-count').textContent = `(${format.number(total)})`;
  $('#runs-count').title = 'the runs stored that the filters select';
  $('#runs-page').textContent = runs.length ? `${format.number(first)}–${format.number(last)} of ${format.number(total)}` : '';
  $('#runs-newer').disabled = runsQuery.offset === 0;
  $('#runs-older').disabled = last >= total;
  const container = $('#runs');
  if (runs.length === 0) {
    const filtered = ['workflow', 'state', 'from', 'to'].some((key) => runsQuery[key]);
    replace(container, h('p', { class: 'muted' }, filtered ? 'No run matches these filters.' : runsQuery.offset ? 'No runs on this page.' : 'No runs yet. Start a workflow above.'));
    return;
  }
  const selected = currentRunId();
  // The list is rebuilt as runs change: the row (or grid column) that had the keyboard focus gets it back.
  const focused = document.activeElement?.closest?.('#runs [data-run]')?.dataset.run;
  if (runsView === 'grid') {
    replace(container, gridLegend(), ...runsGrid(runs, selected));
    // Oldest left, as Airflow draws it: each grid opens at its right end, where the newest runs are.
    for (const scroller of container.querySelectorAll('.grid-scroll')) scroller.scrollLeft = scroller.scrollWidth;
    if (focused) container.querySelector(`a[data-run="${CSS.escape(focused)}"]`)?.focus({ preventScroll: true });
    return;
  }
  replace(container, h('table', { class: 'runs-table' },
    h('caption', { class: 'visually-hidden' }, 'Runs, newest first: Enter opens one'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'state'), h('th', { scope: 'col' }, 'workflow'), h('th', { scope: 'col' }, 'parameters'), h('th', { scope: 'col' }, 'steps'), h('th', { scope: 'col' }, 'created'), h('th', { scope: 'col', class: 'num' }, 'duration'))),
    h('tbody', {}, runs.map((run) => h('tr', {
      class: run.id === selected ? 'selected' : '',
      dataset: { run: run.id },
      tabindex: 0,
      title: `run ${run.id}`,
      onclick: () => { location.hash = `#/runs/${run.id}`; },
      onkeydown: (event) => { if (event.key === 'Enter') location.hash = `#/runs/${run.id}`; },
    },
    h('td', {}, badge(run.state)),
    h('td', {}, h('a', { href: `#/runs/${run.id}`, tabindex: -1 }, run.workflow ?? '(yaml)')),
    h('td', { class: 'run-parameters' }, parameterChips(run.parameters, datasetNameMap)),
    h('td', { class: 'run-steps' }, stepDots(run)),
    h('td', { class: 'run-created', title: run.created ?? '' }, format.time(run.created)),
    duration(run))))));
  if (focused) container.querySelector(`tr[data-run="${CSS.escape(focused)}"]`)?.focus({ preventScroll: true });
}

/**
 * The runs as Airflow's grid: for each workflow on the page, its runs as columns (oldest left) and
 * its steps as rows, each cell in the step's state (queued while its service job waits); a column's
 * head opens its run.
 */
function runsGrid(runs, selected) {
  const byWorkflow = new Map();
  for (const run of runs) {
    const name = run.workflow ?? '(yaml)';
    if (!byWorkflow.has(name)) byWorkflow.set(name, []);
    byWorkflow.get(name).push(run);
  }
  return [...byWorkflow].map(([name, newestFirst]) => {
    const columns = [...newestFirst].reverse();
    const steps = [];
    for (const run of columns) {
      for (const cell of run.stepStates ?? []) if (!steps.includes(cell.id)) steps.push(cell.id);
    }
    const title = `${name} · ${columns.length} run${columns.length === 1 ? '' : 's'}, oldest left`;
    return h('div', { class: 'grid-block' },
      h('p', { class: 'grid-title' }, name, h('span', { class: 'muted' }, ` · ${columns.length} run${columns.length === 1 ? '' : 's'}, oldest left`)),
      h('div', { class: 'grid-scroll' }, h('table', { class: 'runs-grid', dataset: { workflow: name }, 'aria-label': title },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'step')),
        columns.map((run) => h('th', { scope: 'col', class: run.id === selected ? 'selected' : '' },
          h('a', {
            href: `#/runs/${run.id}`,
            class: `grid-run state-${run.state}`,
            dataset: { run: run.id },
            title: `${run.state} · ${format.time(run.created)} · ${format.ms(format.between(run.started, run.finished, run.state === 'running'))}`,
            'aria-label': `run of ${format.time(run.created)}: ${run.state}`,
          }))))),
      h('tbody', {}, steps.map((step) => h('tr', {},
        h('th', { scope: 'row', class: 'grid-step' }, step),
        columns.map((run) => {
          const cell = (run.stepStates ?? []).find((c) => c.id === step);
          const state = cellState(cell);
          const said = cell ? `${step}: ${state}${cell.durationMs != null ? ` · ${format.ms(cell.durationMs)}` : ''}` : `${step}: not in this run`;
          return h('td', { class: `grid-cell ${state ? `state-${state}` : 'grid-none'}`, title: said },
            cell
              ? h('a', { href: stepAddress(run.id, step), dataset: { run: run.id, step }, 'aria-label': `${step} of the run of ${format.time(run.created)}: ${state}` })
              : h('span', { class: 'visually-hidden' }, 'none'));
        })))))));
  });
}

/** Each step of a run as a small square in its state, in the workflow's order (the grid's colours). */
function stepDots(run) {
  const cells = run.stepStates ?? [];
  const said = cells.map((cell) => `${cell.id} ${cellState(cell)}`).join(', ');
  return h('span', { title: said, 'aria-label': said || 'no steps', role: 'img' },
    cells.map((cell) => h('span', { class: `step-dot state-${cellState(cell)}`, 'aria-hidden': 'true' })));
}

/** A step whose run is running but whose service job waits in its queue is queued. */
const cellState = (cell) => (cell?.state === 'running' && cell.jobState === 'queued' ? 'queued' : cell?.state);

/** What the grid's colours mean. */
function gridLegend() {
  const states = [['queued', 'queued'], ['running', 'running'], ['succeeded', 'succeeded'], ['failed', 'failed'], ['cancelled', 'cancelled'], ['skipped', 'skipped'], ['none', 'not in the run']];
  return h('ul', { class: 'grid-legend', 'aria-label': 'What the colours mean' },
    states.map(([state, text]) => h('li', {}, h('span', { class: `swatch ${state === 'none' ? 'grid-none' : `state-${state}`}`, 'aria-hidden': 'true' }), text)));
}

/** How the runs are shown: 'list' or 'grid' (kept across visits). */
let runsView = localStorage.getItem('salsa.runsView') === 'grid' ? 'grid' : 'list';

export function setupRunsViews() {
  const show = (view) => {
    runsView = view;
    localStorage.setItem('salsa.runsView', view);
    $('#runs-as-list').setAttribute('aria-pressed', String(view === 'list'));
    $('#runs-as-grid').setAttribute('aria-pressed', String(view === 'grid'));
    $('#runs').setAttribute('aria-label', view === 'grid' ? 'Runs grid' : 'Runs list');
    refreshRuns();
  };
  $('#runs-as-list').addEventListener('click', () => show('list'));
  $('#runs-as-grid').addEventListener('click', () => show('grid'));
  $('#runs-as-list').setAttribute('aria-pressed', String(runsView === 'list'));
  $('#runs-as-grid').setAttribute('aria-pressed', String(runsView === 'grid'));
}

/** A run's duration cell: a running run's counts on each second (tickDurations). */
function duration(run) {
  const running = run.state === 'running' && run.started && !run.finished;
  return h('td', { class: running ? 'num live-duration' : 'num', dataset: running ? { started: run.started } : undefined },
    format.ms(format.between(run.started, run.finished, running)));
}

/** Moves every running run's duration on, once a second while the list shows one. */
function tickDurations() {
  for (const cell of document.querySelectorAll('#runs td.live-duration')) {
    cell.textContent = format.ms(format.between(cell.dataset.started, null, true));
  }
}

setInterval(tickDurations, 1000);

/** The runs list's filters and page: GET /api/runs?workflow&state&from&before&offset&limit. */
const runsQuery = { workflow: '', state: '', from: '', to: '', offset: 0 };

function runsPath() {
  const query = new URLSearchParams({ limit: RUNS_PAGE, offset: runsQuery.offset });
  if (runsQuery.workflow) query.set('workflow', runsQuery.workflow);
  if (runsQuery.state) query.set('state', runsQuery.state);
  // Dates are the reader's days: from its midnight, to the next day's.
  if (runsQuery.from) query.set('from', new Date(`${runsQuery.from}T00:00`).toISOString());
  if (runsQuery.to) {
    const end = new Date(`${runsQuery.to}T00:00`);
    end.setDate(end.getDate() + 1);
    query.set('before', end.toISOString());
  }
  return `/api/runs?${query}`;
}

let runsTimer = 0;
let listed = false;

/** Whether the runs list has been read since the page loaded. */
export const runsListed = () => listed;
let runsLoading = null;
let runsAgain = false;

/** Reloads the runs list now (one request at a time; a change during one loads once more after it). */
export function refreshRuns() {
  if (runsLoading) {
    runsAgain = true;
    return runsLoading;
  }
  clearTimeout(runsTimer);
  runsLoading = (async () => {
    try {
      const response = await fetch(runsPath(), { headers: { Accept: 'application/json', ...authHeaders() }, cache: 'no-store' });
      connection(true);
      if (!response.ok) {
        const problem = await response.json().catch(() => null);
        if (response.status === 401) askForKey(problem?.detail);
        throw new Error(`${response.status} ${problem?.detail ?? problem?.title ?? response.statusText}`);
      }
      const runs = await response.json();
      listed = true;
      renderRuns(runs, Number(response.headers.get('X-Total-Count') ?? runs.length));
    } catch (error) {
      if (error instanceof TypeError) connection(false, error.message);
      replace($('#runs'), h('p', { class: 'error' }, `Runs: ${error.message}`));
    } finally {
      runsLoading = null;
      if (runsAgain) {
        runsAgain = false;
        refreshRuns();
      } else if (!runsFeed || runsFeed.readyState === 2) {
        runsTimer = setTimeout(refreshRuns, RUNS_FALLBACK_MS);
      }
    }
  })();
  return runsLoading;
}

/** The runs' event stream (/api/runs/events): a run accepted or changing state reloads the list. */
let runsFeed = null;
let runsFeedRetry = 0;

export function followRuns() {
  runsFeed?.close();
  const url = '/api/runs/events';
  const source = eventSource(url);
  runsFeed = source;
  let pending = 0;
  source.addEventListener('run', () => {
    runsFeedRetry = 0;
    clearTimeout(pending);
    pending = setTimeout(refreshRuns, 150); // a burst of changes loads the list once
  });
  source.addEventListener('ready', () => {
    runsFeedRetry = 0;
    clearTimeout(runsTimer);
    refreshRuns(); // the watch has begun: what changed before it (or while a stream was down)
  });
  source.addEventListener('error', () => {
    if (runsFeed !== source) return;
    if (source.readyState === 2) {
      // Closed for good (e.g. the gateway restarted): poll until a new stream opens.
      runsFeedRetry = Math.min(runsFeedRetry + 1, 6);
      clearTimeout(runsTimer);
      runsTimer = setTimeout(refreshRuns, 1000);
      setTimeout(() => { if (runsFeed === source) followRuns(); }, 500 * 2 ** runsFeedRetry);
    }
  });
}

/** The filters and page from the address (?workflow&state&from&to&offset): a reload or a shared link keeps them. */
function filtersFromAddress() {
  const query = new URLSearchParams(location.search);
  const day = (value) => (/^\d{4}-\d{2}-\d{2}$/.test(value ?? '') ? value : '');
  const states = [...$('#filter-state').options].map((option) => option.value);
  runsQuery.workflow = query.get('workflow') ?? '';
  runsQuery.state = states.includes(query.get('state')) ? query.get('state') : '';
  runsQuery.from = day(query.get('from'));
  runsQuery.to = day(query.get('to'));
  runsQuery.offset = Math.max(0, Number.parseInt(query.get('offset') ?? '0', 10) || 0);
  $('#filter-workflow').dataset.wanted = runsQuery.workflow; // its options come with the workflows
  $('#filter-state').value = runsQuery.state;
  $('#filter-from').value = runsQuery.from;
  $('#filter-to').value = runsQuery.to;
}

/** The filters and page into the address, the open run (#/runs/…) kept. */
function filtersToAddress() {
  const query = new URLSearchParams();
  for (const key of ['workflow', 'state', 'from', 'to']) if (runsQuery[key]) query.set(key, runsQuery[key]);
  if (runsQuery.offset) query.set('offset', String(runsQuery.offset));
  const search = query.toString();
  history.replaceState(history.state, '', `${location.pathname}${search ? `?${search}` : ''}${location.hash}`);
}

export function setupRunsFilter() {
  filtersFromAddress();
  const form = $('#runs-filter');
  const to = $('#filter-to');
  // A day range the reader can mean: To on From's day or later, said at the field, not as the API's 400.
  const range = watchField(to, () => {
    const from = $('#filter-from').value;
    return from && to.value && to.value < from ? `To must be on or after From (${from}).` : null;
  });
  to.closest('label').after(range.error);
  const read = () => {
    if (range.check()) return;
    runsQuery.workflow = $('#filter-workflow').value;
    runsQuery.state = $('#filter-state').value;
    runsQuery.from = $('#filter-from').value;
    runsQuery.to = $('#filter-to').value;
    runsQuery.offset = 0;
    filtersToAddress();
    refreshRuns();
  };
  form.addEventListener('change', read);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    read();
  });
  $('#runs-newer').addEventListener('click', () => {
    runsQuery.offset = Math.max(0, runsQuery.offset - RUNS_PAGE);
    filtersToAddress();
    refreshRuns();
  });
  $('#runs-older').addEventListener('click', () => {
    runsQuery.offset += RUNS_PAGE;
    filtersToAddress();
    refreshRuns();
  });
}

/** The address of a step of a run. */
export const stepAddress = (runId, stepId) => `#/runs/${encodeURIComponent(runId)}/steps/${encodeURIComponent(stepId)}`;

/** The run the address names (#/runs/{id}), or null. */
export function currentRunId() {
  const match = /^#\/runs\/([^/?#]+)/.exec(location.hash);
  return match ? decodeURIComponent(match[1]) : null;
}

export function highlightRun(id) {
  for (const row of document.querySelectorAll('#runs tr[data-run]')) row.classList.toggle('selected', row.dataset.run === id);
}
