// A run's header (state, times, trace, re-run and cancel), the re-run form, its steps with the
// workflow's graph, and the live progress of the step that reports it.

import { h, replace } from './dom.js';
import * as format from './format.js';
import { api, runUrl } from './api.js';
import { renderLineChart } from './chart.js';
import { renderDag } from './dag.js';
import { parameterForm, parametersText } from './parameters.js';
import { badge, refreshRuns, stepAddress } from './runs.js';
import { consoleSettings } from './services.js';
import { operationOf, operations } from './workflows.js';
import { ACTIVE, applyRun } from './run.js';

const STREAM_TEXT = {
  connecting: 'connecting to events…',
  live: 'live',
  reconnecting: 'reconnecting…',
  polling: 'events unavailable: polling',
  ended: 'run ended',
};

export function renderHeader(current) {
  const run = current.run;
  if (!run) return;
  const active = ACTIVE.has(run.state);
  const field = (label, value, attributes = {}) => h('div', { class: 'field' }, h('dt', {}, label), h('dd', attributes, value));
  const cancel = active
    ? h('button', {
      type: 'button', class: 'secondary cancel',
      onclick: async (event) => {
        const running = (run.steps ?? []).filter((step) => step.state === 'running').map((step) => step.id);
        if (!confirm(`Cancel this ${run.workflow ?? ''} run?${running.length ? ` ${running.join(', ')} stop${running.length === 1 ? 's' : ''}, and ${running.length === 1 ? 'its service job is' : 'their service jobs are'} cancelled.` : ''} Steps not started will not run.`)) return;
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
  const reproduce = run.state === 'succeeded' && run.provenance
    ? h('button', {
      type: 'button', class: 'secondary reproduce', title: 'run it again exactly as it ran, and compare every output with this run\'s',
      onclick: (event) => startReproduction(current, event.target),
    }, 'Reproduce')
    : null;
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
      reproduce,
      cancel),
    h('dl', { class: 'meta' },
      field('run', run.id, { class: 'mono' }),
      field('created', format.time(run.created), { title: run.created ?? '' }),
      field('started', format.time(run.started), { title: run.started ?? '' }),
      field('finished', format.time(run.finished), { title: run.finished ?? '' }),
      field('duration', format.ms(format.between(run.started, run.finished, run.state === 'running'))),
      // A run traced (the gateway exports its spans) names its trace; one that was not shows no field.
      run.traceId ? field('trace', consoleSettings.traceUrl
        ? h('a', { href: consoleSettings.traceUrl.replace('{traceId}', encodeURIComponent(run.traceId)), target: '_blank', rel: 'noopener', class: 'trace-link', title: 'the run\'s trace in the trace viewer' }, run.traceId)
        : run.traceId, { class: 'mono' }) : null,
      run.resumes ? field('resumes', String(run.resumes)) : null,
      field('parameters', parametersText(run.parameters), { class: 'mono run-parameters-field' }),
      run.workflowVersion ? field('workflow version', run.workflowVersion, { class: 'mono', title: "the first 12 hex digits of the SHA-256 of the workflow's text this run ran" }) : null,
      run.rerunOf ? field(run.retriedFrom ? 'retry of' : 're-run of', [h('a', { href: `#/runs/${run.rerunOf}` }, run.rerunOf.slice(0, 8)), run.retriedFrom ? ` from ${run.retriedFrom}` : ''], { class: 'mono' }) : null,
      run.reproduction ? field('reproduction of', h('a', { href: `#/runs/${run.reproduction.of}` }, run.reproduction.of.slice(0, 8)), { class: 'mono' }) : null),
    // A run cancelled on request has not failed: said plainly, not as an error.
    run.state === 'cancelled' ? h('p', { class: 'notice' }, 'Cancelled on request; the steps that had not started did not run.')
      : run.error ? h('div', { class: 'alert' }, h('strong', {}, 'Error: '), String(run.error)) : null);
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

/** POST …/reproduce, then opens the new run: its "How it was made" compares each output with this run's. */
async function startReproduction(current, button) {
  button.disabled = true;
  try {
    const next = await api(`${runUrl(current.run.id)}/reproduce`, { method: 'POST' });
    refreshRuns();
    location.hash = `#/runs/${next.id}`;
  } catch (error) {
    alert(`Reproduce failed: ${error.message}`);
  } finally {
    button.disabled = false;
  }
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

/** A step's scalar outputs as short key/value chips (ids cut to their first 8 characters). */
function outputChips(outputs) {
  if (!outputs || typeof outputs !== 'object') return [];
  return Object.entries(outputs)
    .filter(([, value]) => value !== null && typeof value !== 'object')
    .map(([key, value]) => {
      const text = typeof value === 'number' ? format.compact(value) : String(value);
      return h('span', { class: 'chip', title: `${key}: ${value}` }, h('span', { class: 'chip-key' }, key), ' ', format.short(text));
    });
}

/** A running step whose service job still waits in the service's queue says so: queued, not running. */
const waiting = (step) => step.state === 'running' && step.jobState === 'queued';

function stepBadge(step) {
  return waiting(step)
    ? badge('queued', { title: `in the ${step.service} service's queue: accepted, not started yet: the service runs other jobs first` })
    : badge(step.state);
}


export function renderSteps(current) {
  const steps = current.run?.steps ?? [];
  if (steps.length === 0) {
    replace(current.el.steps, h('p', { class: 'muted' }, 'No steps.'));
    return;
  }
  renderDag(current.el.graph, steps.map((step) => (waiting(step) ? { ...step, state: 'queued' } : step)), (step) => stepAddress(current.run.id, step.id));
  replace(current.el.steps, h('div', { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': 'Steps' }, h('table', { class: 'steps-table' },
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, 'step'), h('th', { scope: 'col' }, 'state'), h('th', { scope: 'col', class: 'num', title: 'attempts' }, 'tries'), h('th', { scope: 'col', class: 'num' }, 'duration'), h('th', { scope: 'col' }, 'outputs'))),
    h('tbody', {}, steps.map((step) => h('tr', { class: `step-${step.state}`, dataset: { step: step.id } },
      h('td', {},
        h('a', { class: 'step-id', href: stepAddress(current.run.id, step.id), title: `Open ${step.id}: its parameters, inputs and outputs, tries, calls and log` }, step.id),
        h('div', { class: 'step-op muted' }, `${step.service}.${step.operation}`, step.dependsOn?.length ? ` ← ${step.dependsOn.join(', ')}` : '')),
      h('td', {}, stepBadge(step), step.reused ? h('div', { class: 'muted small', title: 'its outputs are those of the run this one retried' }, 'reused') : null),
      h('td', { class: 'num' }, step.attempts ?? '–'),
      h('td', { class: 'num' }, format.ms(step.durationMs ?? format.between(step.started, step.finished, step.state === 'running'))),
      h('td', { class: 'outputs' },
        outputChips(step.outputs),
        step.error ? h('div', { class: 'error' }, String(step.error)) : null)))))));
}

export function renderLive(current) {
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
  // The tiles the step's operation says its progress has (the catalog's `progress`), nothing else.
  const operation = operationOf(step.service, step.operation);
  if (!operation) operations().then(() => { if (!current.closed) renderLive(current); }).catch(() => {});
  const reports = new Map((operation?.progress ?? []).map((p) => [p.field, p.label]));
  const shown = {
    iteration: (v) => format.number(v),
    temperature: (v) => format.compact(v),
    clusters: (v) => format.number(v),
    objective: (v) => format.compact(v),
  };
  const charted = history.length > 1 || ACTIVE.has(step.state);
  const objectiveLabel = reports.get('objective');
  const clustersLabel = reports.get('clusters');
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
      [...reports].map(([field, label]) => gauge(label, shown[field]?.(progress[field]) ?? String(progress[field] ?? '–'), String(progress[field] ?? ''))),
      gauge('elapsed', format.ms(progress.elapsedMs))),
    charted && (objectiveLabel || clustersLabel) ? h('div', { class: 'charts' }, objectiveLabel ? objectiveChart : null, clustersLabel ? clustersChart : null) : null,
    charted ? null : h('p', { class: 'muted small' }, 'This run kept no progress history (it ran before the gateway kept one): only its last progress.'));
  if (charted && objectiveLabel) renderLineChart(objectiveChart, { title: objectiveLabel, values: history.map((p) => p.objective), kind: 'objective' });
  if (charted && clustersLabel) renderLineChart(clustersChart, { title: clustersLabel, values: history.map((p) => p.clusters), stepped: true, kind: 'clusters' });
}
