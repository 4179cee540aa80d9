// The gateway's web console: workflows to start, the runs, and one run live — its steps, the
// running step's progress from the event stream, the result image, the cluster tables and the hop
// waterfall. Talks to nothing but the gateway's REST API (docs/gateway.md).

import { h, replace } from './dom.js';
import * as format from './format.js';
import { renderLineChart } from './chart.js';
import { renderWaterfall } from './waterfall.js';
import { parameterForm, parametersText } from './parameters.js';
import { levels, renderDag } from './dag.js';
import { openViewer, setupViewer } from './viewer.js';

const ACTIVE = new Set(['queued', 'running']);
/** The runs list follows the runs' event stream; without it, it is reloaded this often. */
const RUNS_FALLBACK_MS = 15000;
const RUNS_PAGE = 50;
const SERVICES_REFRESH_MS = 30000;
const POLL_MS = 2000;
const HISTORY_LIMIT = 2000;
const TABLE_ROW_LIMIT = 500;
const RESULT_IMAGES = ['map.svg', 'scatter.svg', 'map.png', 'scatter.png'];
/** Figures shown beside the main one when a run has them. */
const EXTRA_IMAGES = ['molecules.svg'];

const $ = (selector) => document.querySelector(selector);
const runUrl = (id) => `/api/runs/${encodeURIComponent(id)}`;
const artifactUrl = (id, name) => `${runUrl(id)}/artifacts/${encodeURIComponent(name)}`;
const stepLogUrl = (id, step) => `${runUrl(id)}/steps/${encodeURIComponent(step)}/log`;

// ---------------------------------------------------------------------------------------------
// Credentials: a gateway that listens beyond loopback asks for an API key (docs/security.md). The
// key is kept for this browser tab only (sessionStorage) and sent as X-Api-Key on every request.

const KEY_STORAGE = 'salsa.apiKey';
const apiKey = () => sessionStorage.getItem(KEY_STORAGE);
const authHeaders = () => (apiKey() ? { 'X-Api-Key': apiKey() } : {});

function showKeyStatus() {
  const button = $('#credentials');
  button.hidden = !apiKey() && !button.dataset.asked;
  button.textContent = apiKey() ? 'API key ✓' : 'API key';
}

/** Asks for an API key (the gateway answered 401), then loads what the page shows again. */
function askForKey(reason) {
  const dialog = $('#key-dialog');
  $('#credentials').dataset.asked = 'yes';
  showKeyStatus();
  // Several requests meet the 401 at once: the gateway's own words, once one has them, stay.
  if (reason || !dialog.open) $('#key-reason').textContent = reason ?? 'This gateway asks for an API key.';
  if (!dialog.open) dialog.showModal();
}

function setupCredentials() {
  const dialog = $('#key-dialog');
  $('#credentials').addEventListener('click', () => askForKey(apiKey() ? 'The API key this tab sends; replace or forget it.' : null));
  $('#key-form').addEventListener('submit', (event) => {
    const key = $('#key-input').value.trim();
    if (event.submitter?.value === 'forget' || !key) sessionStorage.removeItem(KEY_STORAGE);
    else sessionStorage.setItem(KEY_STORAGE, key);
    $('#key-input').value = '';
    dialog.close();
    showKeyStatus();
    loadWorkflows();
    loadServices();
    followRuns();
    refreshRuns();
    if (view) view.id = null; // reopen the run with the new credentials
    route();
  });
  showKeyStatus();
}

/** A file of the gateway: fetched with the credentials (an <img> or a link cannot send them). */
async function fetchBlobUrl(path) {
  const response = await fetch(path, { headers: authHeaders(), cache: 'no-store' });
  if (response.status === 401) askForKey();
  if (!response.ok) throw new ApiError(response.status, `${response.status} ${response.statusText}`);
  return URL.createObjectURL(await response.blob());
}

// ---------------------------------------------------------------------------------------------
// REST

class ApiError extends Error {
  constructor(status, message, problem) {
    super(message);
    this.status = status;
    this.problem = problem;
  }
}

async function api(path, { method = 'GET', body } = {}) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined
        ? { Accept: 'application/json', ...authHeaders() }
        : { Accept: 'application/json', 'Content-Type': 'application/json', ...authHeaders() },
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
  } catch (error) {
    connection(false, error.message);
    throw new ApiError(0, `the gateway is unreachable (${error.message})`);
  }
  connection(true);
  if (!response.ok) {
    let problem = null;
    try {
      problem = await response.json();
    } catch {
      // not a ProblemDetails body
    }
    const errors = Array.isArray(problem?.errors)
      ? problem.errors.map((e) => (e.line ? `line ${e.line}:${e.column ?? ''} ${e.message}` : e.message ?? String(e))).join('; ')
      : problem?.errors && typeof problem.errors === 'object'
        ? Object.entries(problem.errors).map(([k, v]) => `${k}: ${[].concat(v).join(', ')}`).join('; ')
        : '';
    const detail = [problem?.title, problem?.detail, errors].filter(Boolean).join(' — ');
    if (response.status === 401) askForKey(problem?.detail);
    throw new ApiError(response.status, `${response.status} ${detail || response.statusText}`, problem);
  }
  return response.status === 204 ? null : response.json();
}

function connection(ok, message) {
  const element = $('#connection');
  element.className = `connection ${ok ? 'ok' : 'down'}`;
  element.textContent = ok ? 'connected' : 'gateway unreachable';
  element.title = ok ? 'the gateway answers' : message ?? '';
}

// ---------------------------------------------------------------------------------------------
// Workflows

/** The DAG as text, one level per arrow: import → query → {butina, search} → scatter. */
export function dagText(steps) {
  const level = levels(steps);
  const ranks = [];
  for (const step of steps) (ranks[level.get(step.id)] ??= []).push(step.id);
  return ranks.filter(Boolean).map((ids) => (ids.length === 1 ? ids[0] : `{${ids.join(', ')}}`)).join(' → ');
}

function renderWorkflows(workflows) {
  const container = $('#workflows');
  if (workflows.length === 0) {
    replace(container, h('p', { class: 'muted' }, 'No workflows in workflows/.'));
    return;
  }
  replace(container, workflows.map((workflow) => {
    const hasCluster = (workflow.steps ?? []).some((step) => step.id === 'cluster');
    const kmax = hasCluster ? h('input', { class: 'kmax', type: 'number', min: 1, max: 1000, step: 1, placeholder: 'default', 'aria-label': 'Kmax (cluster.maxClusters)' }) : null;
    const message = h('div', { class: 'form-message' });
    const button = h('button', { class: 'start', type: 'button' }, 'Start');
    button.addEventListener('click', async () => {
      message.textContent = '';
      message.className = 'form-message';
      const parameters = {};
      try {
        if (kmax && kmax.value !== '') {
          const value = Number(kmax.value);
          if (!Number.isInteger(value) || value < 1) throw new Error('Kmax must be a whole number ≥ 1');
          parameters['cluster.maxClusters'] = value;
        }
      } catch (error) {
        message.textContent = error.message;
        message.className = 'form-message error';
        return;
      }
      button.disabled = true;
      button.textContent = 'Starting…';
      try {
        await startRun(workflow.name, parameters);
      } catch (error) {
        message.textContent = error.message;
        message.className = 'form-message error';
      } finally {
        button.disabled = false;
        button.textContent = 'Start';
      }
    });
    const errors = workflow.errors ?? [];
    if (errors.length) button.disabled = true;
    return h('div', { class: `workflow${errors.length ? ' invalid' : ''}`, dataset: { workflow: workflow.name } },
      h('div', { class: 'workflow-head' },
        h('span', { class: 'workflow-name' }, workflow.name),
        button),
      workflow.description ? h('p', { class: 'workflow-description' }, workflow.description) : null,
      h('code', { class: 'dag', title: (workflow.steps ?? []).map((st) => `${st.id}: ${st.service}.${st.operation}`).join('\n') }, dagText(workflow.steps ?? [])),
      h('div', { class: 'workflow-parameters' },
        kmax ? h('label', { title: 'the most clusters the annealing may split into (cluster.maxClusters)' }, 'Kmax', kmax) : null,
        errors.length ? null : startForm(workflow, {}, 'parameters')),
      errors.length
        ? h('ul', { class: 'workflow-errors' }, errors.map((e) => h('li', {}, e.line ? `line ${e.line}${e.column ? `:${e.column}` : ''}: ` : '', e.message ?? String(e))))
        : null,
      message);
  }));
}

/** POST /api/runs, then opens the run. */
async function startRun(workflow, parameters) {
  const body = { workflow };
  if (Object.keys(parameters).length) body.parameters = parameters;
  const run = await api('/api/runs', { method: 'POST', body });
  refreshRuns();
  location.hash = `#/runs/${run.id}`;
}

/**
 * A disclosure holding the form of a workflow's parameters (generated from the operations' catalog
 * when first opened, each field filled with the workflow's value); its submit starts a run with the
 * fields changed and the `fixed` parameters.
 */
function startForm(workflow, fixed, summaryText) {
  const details = h('details', { class: 'start-form' }, h('summary', {}, summaryText));
  details.addEventListener('toggle', async () => {
    if (!details.open || details.querySelector('form')) return;
    const body = h('div', {}, h('p', { class: 'muted' }, 'loading the operations…'));
    details.append(body);
    try {
      const catalog = await operations();
      replace(body, parameterForm({ steps: workflow.steps ?? [], parameters: {} }, catalog, {
        submitText: `Start ${workflow.name}`,
        fixed,
        onSubmit: (changes) => startRun(workflow.name, changes),
      }));
    } catch (error) {
      replace(body, h('p', { class: 'error' }, `Operations: ${error.message}`));
    }
  });
  return details;
}

let workflowList = [];

async function loadWorkflows() {
  try {
    workflowList = await api('/api/workflows');
    renderWorkflows(workflowList);
    const filter = $('#filter-workflow');
    const chosen = filter.value;
    replace(filter, h('option', { value: '' }, 'all'), workflowList.map((w) => h('option', { value: w.name }, w.name)));
    filter.value = chosen;
  } catch (error) {
    replace($('#workflows'), h('p', { class: 'error' }, `Workflows: ${error.message}`), h('button', { type: 'button', class: 'link', onclick: loadWorkflows }, 'retry'));
  }
}

// ---------------------------------------------------------------------------------------------
// Your data: a file of places or compounds, uploaded through the gateway to the census or chem
// service (XMLHttpRequest: fetch reports no upload progress), then a run of the mashup on it.

const UPLOADS = {
  places: { path: '/api/uploads/places', workflow: 'census-places', what: 'places' },
  compounds: { path: '/api/uploads/compounds', workflow: 'chem-compounds', what: 'compounds' },
};

function upload(path, file, onProgress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', path);
    for (const [name, value] of Object.entries(authHeaders())) request.setRequestHeader(name, value);
    request.setRequestHeader('Content-Type', 'application/octet-stream');
    request.upload.onprogress = (event) => { if (event.lengthComputable) onProgress(event.loaded / event.total); };
    request.onerror = () => reject(new ApiError(0, 'the gateway is unreachable'));
    request.onload = () => {
      let body = null;
      try {
        body = JSON.parse(request.responseText);
      } catch {
        // not JSON
      }
      if (request.status === 201) resolve(body);
      else {
        if (request.status === 401) askForKey(body?.detail);
        reject(new ApiError(request.status, `${request.status} ${[body?.title, body?.detail].filter(Boolean).join(' — ') || request.statusText}`, body));
      }
    };
    request.send(file);
  });
}

function setupUploads() {
  const form = $('#upload-form');
  const file = $('#upload-file');
  const name = $('#upload-name');
  const progress = $('#upload-progress');
  const result = $('#upload-result');
  const button = $('#upload-button');
  file.addEventListener('change', () => {
    if (file.files[0]) name.placeholder = file.files[0].name;
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const kind = UPLOADS[$('#upload-kind').value];
    const chosen = file.files[0];
    result.className = 'form-message';
    if (!chosen) {
      replace(result, 'Choose a file first.');
      result.className = 'form-message error';
      return;
    }
    button.disabled = true;
    progress.hidden = false;
    progress.value = 0;
    replace(result, `Uploading ${chosen.name}…`);
    try {
      const query = new URLSearchParams({ name: name.value.trim() || chosen.name });
      const answer = await upload(`${kind.path}?${query}`, chosen, (share) => { progress.value = share; });
      progress.value = 1;
      const dataset = answer.dataset;
      const refused = answer.refused ?? [];
      const start = h('button', { type: 'button', class: 'start-upload' }, `Run ${kind.workflow} on it`);
      start.addEventListener('click', async () => {
        start.disabled = true;
        try {
          const run = await api('/api/runs', { method: 'POST', body: { workflow: kind.workflow, parameters: { 'import.dataset': dataset.datasetId, 'import.file': '' } } });
          refreshRuns();
          location.hash = `#/runs/${run.id}`;
        } catch (error) {
          result.append(h('p', { class: 'error' }, error.message));
        } finally {
          start.disabled = false;
        }
      });
      const workflow = workflowList.find((w) => w.name === kind.workflow);
      replace(result,
        h('p', { class: 'upload-done' }, `${dataset.name}: ${format.number(dataset.count)} ${kind.what}`,
          refused.length ? ` · ${refused.length} refused` : ''),
        h('p', { class: 'muted small' }, 'dataset ', h('code', {}, dataset.datasetId)),
        refused.length
          ? h('ul', { class: 'refused' }, refused.slice(0, 5).map((r) => h('li', {}, `line ${r.line} (${r.id}): ${r.reason}`)))
          : null,
        start,
        workflow ? startForm(workflow, { 'import.dataset': dataset.datasetId, 'import.file': '' }, `or run ${kind.workflow} on it with parameters`) : null);
    } catch (error) {
      replace(result, error.message);
      result.className = 'form-message error';
    } finally {
      button.disabled = false;
      progress.hidden = true;
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Runs

const badge = (state, attributes = {}) => h('span', { ...attributes, class: `badge state-${state ?? 'unknown'}` }, state ?? '?');

function renderRuns(runs, total) {
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
    replace(container, ...runsGrid(runs, selected));
    if (focused) container.querySelector(`a[data-run="${CSS.escape(focused)}"]`)?.focus({ preventScroll: true });
    return;
  }
  replace(container, h('table', { class: 'runs-table' },
    h('caption', { class: 'visually-hidden' }, 'Runs, newest first: Enter opens one'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'state'), h('th', { scope: 'col' }, 'workflow'), h('th', { scope: 'col' }, 'created'), h('th', { scope: 'col', class: 'num' }, 'duration'))),
    h('tbody', {}, runs.map((run) => h('tr', {
      class: run.id === selected ? 'selected' : '',
      dataset: { run: run.id },
      tabindex: 0,
      title: `run ${run.id}`,
      onclick: () => { location.hash = `#/runs/${run.id}`; },
      onkeydown: (event) => { if (event.key === 'Enter') location.hash = `#/runs/${run.id}`; },
    },
    h('td', {}, badge(run.state)),
    h('td', {}, h('a', { href: `#/runs/${run.id}`, tabindex: -1 }, run.workflow ?? '(yaml)'),
      Object.keys(run.parameters ?? {}).length ? h('div', { class: 'run-parameters' }, parametersText(run.parameters)) : null),
    h('td', { title: run.created ?? '' }, format.time(run.created)),
    h('td', { class: 'num' }, format.ms(format.between(run.started, run.finished, run.state === 'running'))))))));
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
    const cellState = (cell) => (cell?.state === 'running' && cell.jobState === 'queued' ? 'queued' : cell?.state);
    const title = `${name} · ${columns.length} run${columns.length === 1 ? '' : 's'}, oldest left`;
    return h('div', { class: 'grid-block' },
      h('p', { class: 'grid-title' }, name, h('span', { class: 'muted' }, ` · ${columns.length} run${columns.length === 1 ? '' : 's'}, oldest left`)),
      h('table', { class: 'runs-grid', dataset: { workflow: name }, 'aria-label': title },
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
          return h('td', {
            class: `grid-cell ${state ? `state-${state}` : 'grid-none'}`,
            title: cell ? `${step}: ${state}${cell.durationMs != null ? ` · ${format.ms(cell.durationMs)}` : ''}` : `${step}: not in this run`,
          }, h('span', { class: 'visually-hidden' }, state ?? 'none'));
        }))))));
  });
}

/** How the runs are shown: 'list' or 'grid' (kept across visits). */
let runsView = localStorage.getItem('salsa.runsView') === 'grid' ? 'grid' : 'list';

function setupRunsViews() {
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
let runsLoading = null;
let runsAgain = false;

/** Reloads the runs list now (one request at a time; a change during one loads once more after it). */
function refreshRuns() {
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

function followRuns() {
  runsFeed?.close();
  const url = '/api/runs/events';
  const source = apiKey() ? new FetchEventSource(url) : new EventSource(url);
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

function setupRunsFilter() {
  const form = $('#runs-filter');
  const read = () => {
    runsQuery.workflow = $('#filter-workflow').value;
    runsQuery.state = $('#filter-state').value;
    runsQuery.from = $('#filter-from').value;
    runsQuery.to = $('#filter-to').value;
    runsQuery.offset = 0;
    refreshRuns();
  };
  form.addEventListener('change', read);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    read();
  });
  $('#runs-newer').addEventListener('click', () => {
    runsQuery.offset = Math.max(0, runsQuery.offset - RUNS_PAGE);
    refreshRuns();
  });
  $('#runs-older').addEventListener('click', () => {
    runsQuery.offset += RUNS_PAGE;
    refreshRuns();
  });
}

// ---------------------------------------------------------------------------------------------
// Services: their health in the header (GET /api/services: grpc.health.v1 of each).

const HEALTH_TEXT = { serving: 'serving', 'not-serving': 'not serving', unreachable: 'unreachable', idle: 'idle (starts on first use)' };

let servicesTimer = 0;

async function loadServices() {
  clearTimeout(servicesTimer);
  const summary = $('#services-summary');
  try {
    const services = await api('/api/services');
    const count = (health) => services.filter((sv) => sv.health === health).length;
    const bad = services.length - count('serving') - count('idle');
    summary.className = bad ? 'services-down' : 'services-ok';
    summary.textContent = bad ? `services: ${bad} down` : `services: ${count('serving')} serving`;
    replace($('#services-panel'), h('table', { class: 'services-table' },
      h('caption', { class: 'visually-hidden' }, 'The services the gateway calls'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'service'), h('th', { scope: 'col' }, 'mode'), h('th', { scope: 'col' }, 'health'))),
      h('tbody', {}, services.map((sv) => h('tr', {},
        h('td', { class: 'mono' }, sv.name),
        h('td', {}, sv.mode),
        h('td', {}, h('span', { class: `health health-${sv.health}` }, HEALTH_TEXT[sv.health] ?? sv.health)))))));
  } catch (error) {
    summary.className = 'services-down';
    summary.textContent = 'services: ?';
    replace($('#services-panel'), h('p', { class: 'error' }, error.message));
  } finally {
    clearTimeout(servicesTimer);
    servicesTimer = setTimeout(loadServices, SERVICES_REFRESH_MS);
  }
}

/** The console's links (GET /api/console): the trace viewer's page of a trace, when configured. */
let consoleSettings = {};

async function loadConsoleSettings() {
  try {
    consoleSettings = await api('/api/console');
    if (view?.run) renderHeader(view);
  } catch {
    // no links then
  }
}

// ---------------------------------------------------------------------------------------------
// One run

/** The run on screen: its latest state, its event stream and the progress seen on it. */
let view = null;

function currentRunId() {
  const match = /^#\/runs\/([^/?#]+)/.exec(location.hash);
  return match ? decodeURIComponent(match[1]) : null;
}

function closeView() {
  if (!view) return;
  view.closed = true;
  view.source?.close();
  clearInterval(view.clock);
  clearTimeout(view.poll);
  view = null;
}

function section(id, title, extraClass = '') {
  const body = h('div', { class: 'card-body' });
  const card = h('section', { class: `card ${extraClass}`.trim(), id }, h('h2', {}, title), body);
  return { card, body };
}

function openRun(id) {
  closeView();
  const header = h('section', { class: 'card run-header', tabindex: -1, 'aria-label': 'run' });
  const steps = section('steps', 'Steps');
  const live = section('live', 'Progress');
  const result = section('result', 'Result');
  const clusters = section('clusters', 'Clusters');
  const waterfallBody = h('div', { id: 'waterfall', tabindex: 0, role: 'region', 'aria-label': 'Hop waterfall' });
  const waterfall = h('section', { class: 'card', id: 'waterfall-card' },
    h('h2', {}, 'Hops ', h('span', { class: 'muted' }, 'gateway → service calls: latency split into queue, compute, other server time and network')),
    waterfallBody);
  const rerun = h('section', { class: 'card rerun', id: 'rerun', hidden: true, 'aria-label': 'Re-run with changes' });
  replace($('#view'),
    header,
    rerun,
    h('div', { class: 'grid-2' }, steps.card, live.card),
    result.card,
    clusters.card,
    waterfall);
  view = {
    id,
    run: null,
    history: new Map(),
    stream: 'connecting',
    errors: 0,
    signatures: {},
    el: { header, rerun, steps: steps.body, live: live.body, result: result.body, resultCard: result.card, clusters: clusters.body, clustersCard: clusters.card, waterfall: waterfallBody },
  };
  replace(header, h('p', { class: 'muted' }, `loading run ${id}…`));
  // A started or opened run is brought into view (on one column it may lie far below) and focused.
  header.scrollIntoView({ block: 'start' });
  header.focus({ preventScroll: true });
  highlightRun(id);
  loadRun(view);
}

function highlightRun(id) {
  for (const row of document.querySelectorAll('#runs tr[data-run]')) row.classList.toggle('selected', row.dataset.run === id);
}

async function loadRun(current) {
  try {
    const run = await api(runUrl(current.id));
    if (current.closed) return;
    current.run = run;
    for (const step of run.steps ?? []) seedHistory(current, step);
    render(current);
    if (ACTIVE.has(run.state)) {
      follow(current);
      current.clock = setInterval(() => {
        if (current.run && ACTIVE.has(current.run.state)) {
          renderHeader(current);
          renderSteps(current);
          if (current.run.hopsInFlight?.length) renderWaterfall(current.el.waterfall, current.run); // the calls in flight grow
        }
      }, 1000);
    } else {
      current.stream = 'ended';
      renderHeader(current);
    }
  } catch (error) {
    if (current.closed) return;
    replace($('#view'), h('section', { class: 'card run-header' },
      h('h1', {}, 'Run not available'),
      h('p', { class: 'error' }, error.status === 404 ? `The gateway has no run ${current.id}.` : error.message),
      h('p', {}, h('a', { href: '#/' }, 'back'), ' · ', h('button', { type: 'button', class: 'link', onclick: () => openRun(current.id) }, 'retry'))));
  }
}

/**
 * Server-sent events read with fetch, which (unlike EventSource) can send the API key: calls
 * listeners as EventSource would, and 'error' when the stream fails or ends.
 */
class FetchEventSource {
  constructor(url) {
    this.url = url;
    this.listeners = new Map();
    this.readyState = 0;
    this.abort = new AbortController();
    this.read();
  }

  addEventListener(name, listener) {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
  }

  emit(name, data) {
    for (const listener of this.listeners.get(name) ?? []) listener({ data });
  }

  close() {
    this.readyState = 2;
    this.abort.abort();
  }

  async read() {
    try {
      const response = await fetch(this.url, { headers: { Accept: 'text/event-stream', ...authHeaders() }, cache: 'no-store', signal: this.abort.signal });
      if (response.status === 401) askForKey();
      if (!response.ok || !response.body) throw new Error(`${response.status}`);
      this.readyState = 1;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value.replace(/\r\n?/g, '\n');
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let name = 'message';
          const data = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) name = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
          }
          if (data.length) this.emit(name, data.join('\n'));
        }
      }
    } catch {
      // reported below, as EventSource reports a broken stream
    }
    if (this.readyState === 2) return;
    this.readyState = 2;
    this.emit('error', null);
  }
}

/** Follows the run's server-sent events until its final `run` event; polls when the stream cannot be had. */
function follow(current) {
  // EventSource cannot send credentials: with a key, the same stream is read with fetch.
  current.source?.close();
  const source = apiKey() ? new FetchEventSource(`${runUrl(current.id)}/events`) : new EventSource(`${runUrl(current.id)}/events`);
  current.source = source;
  const on = (name, handler) => source.addEventListener(name, (event) => {
    if (current.closed) return;
    current.errors = 0;
    if (current.stream !== 'live') {
      current.stream = 'live';
      renderHeader(current);
    }
    let data;
    try {
      data = JSON.parse(event.data);
    } catch {
      return;
    }
    handler(data);
  });

  on('run', (run) => applyRun(current, run));
  on('step', (step) => applyStep(current, step));
  on('progress', ({ step, progress }) => applyProgress(current, step, progress));
  on('hop-start', (call) => applyHopStart(current, call));
  on('hop', (hop) => applyHop(current, hop));
  // A gateway that sends unnamed events: tell them apart by shape.
  on('message', (data) => {
    if (Array.isArray(data.steps)) applyRun(current, data);
    else if (data.progress && data.step && !data.state) applyProgress(current, data.step, data.progress);
    else if ('latencyMs' in data) applyHop(current, data);
    else if (data.id && data.state) applyStep(current, data);
  });

  source.addEventListener('error', () => {
    if (current.closed || current.source !== source) return;
    if (current.run && !ACTIVE.has(current.run.state)) {
      source.close();
      return;
    }
    current.errors += 1;
    // The browser reconnects by itself (and the gateway resends the whole run first); after
    // repeated failures, or once the browser gives up, poll the run instead.
    if (source.readyState === 2 /* CLOSED */ || current.errors > 5) {
      source.close();
      current.stream = 'polling';
      renderHeader(current);
      clearTimeout(current.poll);
      current.poll = setTimeout(() => poll(current), POLL_MS);
    } else {
      current.stream = 'reconnecting';
      renderHeader(current);
    }
  });
}

/**
 * Polls the run while its stream is down; once the gateway answers again (it may have restarted
 * and resumed the run), the stream is opened anew and polling stops.
 */
async function poll(current) {
  if (current.closed) return;
  let answered = false;
  try {
    applyRun(current, await api(runUrl(current.id)));
    answered = true;
  } catch {
    // the gateway may be restarting; keep trying
  }
  if (current.closed || !current.run || !ACTIVE.has(current.run.state)) return;
  if (answered) {
    current.errors = 0;
    current.stream = 'reconnecting';
    renderHeader(current);
    follow(current);
    return;
  }
  current.poll = setTimeout(() => poll(current), POLL_MS);
}

function applyRun(current, run) {
  if (run.id && run.id !== current.id) return;
  current.run = run;
  for (const step of run.steps ?? []) seedHistory(current, step);
  if (!ACTIVE.has(run.state)) {
    current.source?.close();
    current.stream = 'ended';
    clearInterval(current.clock);
    current.signatures = {};
    refreshRuns();
  }
  render(current);
}

function applyStep(current, step) {
  const run = current.run;
  if (!run) return;
  const steps = run.steps ?? (run.steps = []);
  const index = steps.findIndex((st) => st.id === step.id);
  const before = index >= 0 ? steps[index] : null;
  // A new attempt (a retry, or the step run again after a gateway restart) starts its own curves.
  if (before && ((step.attempts ?? 0) > (before.attempts ?? 0) || (step.started && before.started && step.started !== before.started))) {
    current.history.delete(step.id);
  }
  if (index >= 0) steps[index] = { ...steps[index], ...step };
  else steps.push(step);
  seedHistory(current, step);
  renderSteps(current);
  renderLive(current);
  renderClusters(current);
}

function applyProgress(current, stepId, progress) {
  const step = current.run?.steps?.find((st) => st.id === stepId);
  if (step) step.progress = progress;
  recordProgress(current, stepId, progress);
  current.lastProgressStep = stepId;
  schedule(current, 'live', () => renderLive(current));
}

function hopKey(hop) {
  return `${hop.step}|${hop.service}|${hop.operation}|${hop.start}`;
}

/** A call begun: drawn in flight until its hop arrives. */
function applyHopStart(current, call) {
  const run = current.run;
  if (!run) return;
  const flying = run.hopsInFlight ?? (run.hopsInFlight = []);
  if (!flying.some((existing) => hopKey(existing) === hopKey(call)) && !(run.hops ?? []).some((hop) => hopKey(hop) === hopKey(call))) flying.push(call);
  schedule(current, 'waterfall', () => renderWaterfall(current.el.waterfall, current.run));
}

function applyHop(current, hop) {
  const run = current.run;
  if (!run) return;
  const hops = run.hops ?? (run.hops = []);
  if (!hops.some((existing) => hopKey(existing) === hopKey(hop))) hops.push(hop);
  run.hopsInFlight = (run.hopsInFlight ?? []).filter((call) => hopKey(call) !== hopKey(hop));
  schedule(current, 'waterfall', () => renderWaterfall(current.el.waterfall, current.run));
}

/** A step's progress as the gateway kept it (a run opened late, or finished, still has its curves), then its latest. */
function seedHistory(current, step) {
  const kept = step.progressHistory ?? [];
  if (kept.length > (current.history.get(step.id)?.length ?? 0)) current.history.set(step.id, [...kept]);
  recordProgress(current, step.id, step.progress);
}

function recordProgress(current, stepId, progress) {
  if (!stepId || !progress) return;
  let history = current.history.get(stepId);
  if (!history) current.history.set(stepId, (history = []));
  const last = history[history.length - 1];
  if (last && last.iteration === progress.iteration && last.elapsedMs === progress.elapsedMs && last.objective === progress.objective) return;
  history.push(progress);
  if (history.length > HISTORY_LIMIT) {
    // keep the first, thin the rest: the chart's shape survives a long run
    current.history.set(stepId, history.filter((_, i) => i === 0 || i % 2 === 1));
  }
}

/** One render per animation frame per part, however many events arrive. */
function schedule(current, part, draw) {
  current.pending ??= new Map();
  if (current.pending.has(part)) return;
  current.pending.set(part, requestAnimationFrame(() => {
    current.pending.delete(part);
    if (!current.closed) draw();
  }));
}

function render(current) {
  renderHeader(current);
  renderSteps(current);
  renderLive(current);
  renderResult(current);
  renderClusters(current);
  renderWaterfall(current.el.waterfall, current.run);
}

const STREAM_TEXT = {
  connecting: 'connecting to events…',
  live: 'live',
  reconnecting: 'reconnecting…',
  polling: 'events unavailable: polling',
  ended: 'run ended',
};

function renderHeader(current) {
  const run = current.run;
  if (!run) return;
  const active = ACTIVE.has(run.state);
  const field = (label, value, attributes = {}) => h('div', { class: 'field' }, h('dt', {}, label), h('dd', attributes, value));
  const cancel = active
    ? h('button', {
      type: 'button', class: 'secondary cancel',
      onclick: async (event) => {
        event.target.disabled = true;
        try {
          applyRun(current, await api(`${runUrl(run.id)}/cancel`, { method: 'POST' }));
        } catch (error) {
          alert(`Cancel failed: ${error.message}`);
          event.target.disabled = false;
        }
      },
    }, 'Cancel')
    : null;
  const rerun = h('button', { type: 'button', class: 'secondary rerun-now', onclick: (event) => rerunWith(current, {}, event.target) }, 'Re-run');
  const rerunWithChanges = h('button', {
    type: 'button', class: 'secondary rerun-changes', 'aria-controls': 'rerun', 'aria-expanded': String(!current.el.rerun.hidden),
    onclick: () => toggleRerunForm(current),
  }, 'Re-run with changes');
  let state = current.el.header.querySelector('#run-state');
  if (!state) state = h('span', { id: 'run-state' });
  state.className = `badge large state-${run.state}`;
  state.textContent = run.state;
  replace(current.el.header,
    h('div', { class: 'run-title' },
      h('h1', {}, run.workflow ?? 'workflow'),
      state,
      h('span', { class: `stream stream-${current.stream}` }, STREAM_TEXT[current.stream] ?? current.stream),
      h('span', { class: 'spacer' }),
      rerun,
      rerunWithChanges,
      cancel),
    h('dl', { class: 'meta' },
      field('run', run.id, { class: 'mono' }),
      field('created', format.time(run.created), { title: run.created ?? '' }),
      field('started', format.time(run.started), { title: run.started ?? '' }),
      field('finished', format.time(run.finished), { title: run.finished ?? '' }),
      field('duration', format.ms(format.between(run.started, run.finished, run.state === 'running'))),
      field('trace', run.traceId && consoleSettings.traceUrl
        ? h('a', { href: consoleSettings.traceUrl.replace('{traceId}', encodeURIComponent(run.traceId)), target: '_blank', rel: 'noopener', class: 'trace-link', title: 'the run\'s trace in the trace viewer' }, run.traceId)
        : run.traceId ?? '–', { class: 'mono' }),
      run.resumes ? field('resumes', String(run.resumes)) : null,
      field('parameters', parametersText(run.parameters), { class: 'mono run-parameters-field' }),
      run.workflowVersion ? field('workflow version', run.workflowVersion, { class: 'mono', title: "the first 12 hex digits of the SHA-256 of the workflow's text this run ran" }) : null,
      run.rerunOf ? field('re-run of', h('a', { href: `#/runs/${run.rerunOf}` }, run.rerunOf.slice(0, 8)), { class: 'mono' }) : null),
    run.error ? h('div', { class: 'alert' }, h('strong', {}, 'Error: '), String(run.error)) : null);
}

/** POST …/rerun with `changes` over the run's parameters, then opens the new run. */
async function rerunWith(current, changes, button) {
  if (button) button.disabled = true;
  try {
    const next = await api(`${runUrl(current.run.id)}/rerun`, { method: 'POST', body: { parameters: changes } });
    refreshRuns();
    location.hash = `#/runs/${next.id}`;
  } catch (error) {
    if (!button) throw error;
    alert(`Re-run failed: ${error.message}`);
  } finally {
    if (button) button.disabled = false;
  }
}

let operationsLoading = null;

/** The operations' catalog, fetched once (again after a failure). */
function operations() {
  operationsLoading ??= api('/api/operations').catch((error) => { operationsLoading = null; throw error; });
  return operationsLoading;
}

/** Shows (or hides) the form of the run's parameters; its submit re-runs with the changes. */
async function toggleRerunForm(current) {
  const box = current.el.rerun;
  const toggle = current.el.header.querySelector('.rerun-changes');
  if (!box.hidden) {
    box.hidden = true;
    toggle?.setAttribute('aria-expanded', 'false');
    toggle?.focus();
    return;
  }
  box.hidden = false;
  toggle?.setAttribute('aria-expanded', 'true');
  replace(box, h('p', { class: 'muted' }, 'loading the operations…'));
  try {
    const catalog = await operations();
    if (current.closed) return;
    replace(box,
      h('h2', {}, 'Re-run with changes ', h('span', { class: 'muted' }, "each field holds what the step ran with; an emptied override goes back to the workflow's value")),
      parameterForm(current.run, catalog, {
        submitText: 'Start the re-run',
        onSubmit: (changes) => rerunWith(current, changes),
        onCancel: () => toggleRerunForm(current),
      }));
    box.querySelector('input, select')?.focus();
  } catch (error) {
    replace(box, h('p', { class: 'error' }, `Operations: ${error.message}`));
  }
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A step's scalar outputs as short key/value chips (ids cut to their first 8 characters). */
function outputChips(outputs) {
  if (!outputs || typeof outputs !== 'object') return [];
  return Object.entries(outputs)
    .filter(([, value]) => value !== null && typeof value !== 'object')
    .map(([key, value]) => {
      const text = typeof value === 'number' ? format.compact(value) : String(value);
      const short = GUID.test(text) ? `${text.slice(0, 8)}…` : text.length > 24 ? `${text.slice(0, 23)}…` : text;
      return h('span', { class: 'chip', title: `${key}: ${value}` }, h('span', { class: 'chip-key' }, key), ' ', short);
    });
}

/** A running step whose service job still waits in the service's queue says so: queued, not running. */
const waiting = (step) => step.state === 'running' && step.jobState === 'queued';

function stepBadge(step) {
  return waiting(step)
    ? badge('queued', { title: `in the ${step.service} service's queue: accepted, not started yet: the service runs other jobs first` })
    : badge(step.state);
}

function renderSteps(current) {
  const steps = current.run?.steps ?? [];
  if (steps.length === 0) {
    replace(current.el.steps, h('p', { class: 'muted' }, 'No steps.'));
    return;
  }
  const dag = h('div', { class: 'dag-box', tabindex: 0, role: 'region', 'aria-label': "The workflow's graph" });
  renderDag(dag, steps.map((step) => (waiting(step) ? { ...step, state: 'queued' } : step)));
  replace(current.el.steps, dag, h('div', { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': 'Steps' }, h('table', { class: 'steps-table' },
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, 'step'), h('th', { scope: 'col' }, 'state'), h('th', { scope: 'col', class: 'num', title: 'attempts' }, 'tries'), h('th', { scope: 'col', class: 'num' }, 'duration'), h('th', { scope: 'col' }, 'outputs'))),
    h('tbody', {}, steps.map((step) => h('tr', { class: `step-${step.state}`, dataset: { step: step.id } },
      h('td', {},
        h('div', { class: 'step-id' }, step.id),
        h('div', { class: 'step-op muted' }, `${step.service}.${step.operation}`, step.dependsOn?.length ? ` ← ${step.dependsOn.join(', ')}` : ''),
        step.jobs?.length
          ? gatewayLink(stepLogUrl(current.run.id, step.id), { class: 'step-log small', title: `What the ${step.service} job${step.jobs.length > 1 ? 's' : ''} of ${step.id} logged` }, step.jobs.length > 1 ? `logs (${step.jobs.length} jobs)` : 'job log')
          : null),
      h('td', {}, stepBadge(step)),
      h('td', { class: 'num' }, step.attempts ?? '–'),
      h('td', { class: 'num' }, format.ms(step.durationMs ?? format.between(step.started, step.finished, step.state === 'running'))),
      h('td', { class: 'outputs' },
        outputChips(step.outputs),
        step.error ? h('div', { class: 'error' }, String(step.error)) : null)))))));
}

function renderLive(current) {
  const run = current.run;
  const steps = run?.steps ?? [];
  const seen = (st) => current.history.get(st.id)?.length ?? 0;
  const reporting = steps.filter((st) => st.progress || seen(st) > 0);
  // The step the reader picked; else the running one; else the one that said the most (the clustering).
  const step = reporting.find((st) => st.id === current.liveStep)
    ?? reporting.find((st) => st.state === 'running')
    ?? [...reporting].sort((a, b) => seen(b) - seen(a))[0]
    ?? steps.find((st) => st.state === 'running');
  if (!step) {
    replace(current.el.live, h('p', { class: 'muted' }, run && ACTIVE.has(run.state) ? 'Waiting for a step to report progress…' : 'No step reported progress.'));
    return;
  }
  const history = current.history.get(step.id) ?? [];
  const progress = step.progress ?? history[history.length - 1] ?? {};
  const gauge = (label, value, title) => h('div', { class: 'gauge', title: title ?? '' }, h('div', { class: 'gauge-label' }, label), h('div', { class: 'gauge-value' }, value));
  const objectiveLabel = /anneal/i.test(progress.phase ?? '') ? 'free energy' : 'objective';
  const known = new Set(['phase', 'iteration', 'temperature', 'clusters', 'objective', 'elapsedMs']);
  const others = Object.entries(progress).filter(([key, value]) => !known.has(key) && (typeof value === 'number' || typeof value === 'string'));
  const charted = history.length > 1 || ACTIVE.has(step.state);
  const objectiveChart = h('div', { class: 'chart-box' });
  const clustersChart = h('div', { class: 'chart-box' });
  const tabs = reporting.length > 1
    ? h('div', { class: 'tabs', role: 'tablist' }, reporting.map((st) => h('button', {
      type: 'button', role: 'tab', class: `tab${st.id === step.id ? ' active' : ''}`, 'aria-selected': st.id === step.id ? 'true' : 'false',
      onclick: () => {
        current.liveStep = st.id;
        renderLive(current);
      },
    }, st.id)))
    : null;
  replace(current.el.live,
    tabs,
    h('div', { class: 'live-step' },
      h('span', { class: 'step-id' }, step.id),
      h('span', { class: 'muted' }, ` ${step.service}.${step.operation}`),
      progress.phase ? h('span', { class: 'phase' }, progress.phase) : null,
      badge(step.state)),
    h('div', { class: 'gauges' },
      gauge('iteration', format.number(progress.iteration)),
      gauge('temperature', format.compact(progress.temperature), String(progress.temperature ?? '')),
      gauge('clusters', format.number(progress.clusters)),
      gauge(objectiveLabel, format.compact(progress.objective), typeof progress.objective === 'number' ? String(progress.objective) : ''),
      gauge('elapsed', format.ms(progress.elapsedMs)),
      others.map(([key, value]) => gauge(key, typeof value === 'number' ? format.compact(value) : value))),
    charted ? h('div', { class: 'charts' }, objectiveChart, clustersChart) : null,
    charted ? null : h('p', { class: 'muted small' }, 'This run kept no progress history (it ran before the gateway kept one): only its last progress.'));
  if (charted) {
    renderLineChart(objectiveChart, { title: objectiveLabel, values: history.map((p) => p.objective), kind: 'objective' });
    renderLineChart(clustersChart, { title: 'clusters', values: history.map((p) => p.clusters), stepped: true, kind: 'clusters' });
  }
}

function renderResult(current) {
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
function gatewayLink(url, attributes, content) {
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

function renderClusters(current) {
  const steps = (current.run?.steps ?? []).filter((st) => Array.isArray(st.outputs?.table) && st.outputs.table.length > 0);
  const signature = steps.map((st) => `${st.id}:${st.state}:${st.outputs.table.length}`).join(',');
  if (current.signatures.clusters === signature) return;
  current.signatures.clusters = signature;
  current.el.clustersCard.querySelector('h2').textContent = steps.length > 1 || steps.some((st) => st.id !== 'cluster') ? 'Tables' : 'Clusters';
  if (steps.length === 0) {
    replace(current.el.clusters, h('p', { class: 'muted' }, ACTIVE.has(current.run?.state) ? 'Tables appear as steps finish.' : 'No step produced a table.'));
    return;
  }
  replace(current.el.clusters, h('div', { class: 'tables' }, steps.map((step) => tableOf(step))));
}

function tableOf(step) {
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
      h('thead', {}, h('tr', {}, depicted ? h('th', { scope: 'col' }, 'structure') : null, columns.map((c) => h('th', { scope: 'col', class: numeric.has(c) ? 'num' : '' }, c)))),
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

// ---------------------------------------------------------------------------------------------
// Home and routing

function home() {
  closeView();
  highlightRun(null);
  replace($('#view'), h('section', { class: 'card welcome' },
    h('h1', {}, 'Workflow gateway'),
    h('p', {}, 'Start a workflow on the left, or open a run to follow its steps, its progress, its result and every hop the gateway made to the services.'),
    h('p', { class: 'muted' }, 'REST: ', h('a', { href: '/api/workflows' }, '/api/workflows'), ' · ', h('a', { href: '/api/runs' }, '/api/runs'), ' · ', h('a', { href: '/scalar' }, 'API reference'))));
}

function route() {
  const id = currentRunId();
  if (id) {
    if (view?.id !== id) openRun(id);
  } else {
    home();
  }
}

// The charts and the waterfall are drawn to their container's width: redraw when it changes
// (a window resize, a scrollbar appearing).
let resizeTimer = 0;
let drawnWidth = 0;
new ResizeObserver(([entry]) => {
  const width = Math.round(entry.contentRect.width);
  if (width === drawnWidth) return;
  drawnWidth = width;
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    if (view?.run) {
      renderLive(view);
      renderWaterfall(view.el.waterfall, view.run);
    }
  }, 100);
}).observe($('#view'));
window.addEventListener('hashchange', route);

setupCredentials();
setupUploads();
setupRunsFilter();
setupRunsViews();
setupViewer();
loadWorkflows();
loadConsoleSettings();
loadServices();
refreshRuns();
route();
// The runs' stream holds a connection for as long as the page is open: opened once the page has
// loaded, so it does not take one of the browser's six connections to the gateway from the page's
// own files.
if (document.readyState === 'complete') followRuns();
else window.addEventListener('load', followRuns, { once: true });
