// One run on screen, live: loaded, then followed by its server-sent events (polled while they
// cannot be had, and followed again once the gateway answers), each event applied to the run and
// drawn once per animation frame (GET /api/runs/{id}, GET /api/runs/{id}/events).

import { $, h, replace } from './dom.js';
import { api, eventSource, runUrl } from './api.js';
import { renderWaterfall } from './waterfall.js';
import { highlightRun, refreshRuns } from './runs.js';
import { renderHeader, renderLive, renderSteps } from './run-view.js';
import { renderClusters, renderResult } from './run-result.js';
import { renderProvenance } from './provenance.js';
import { renderStep, showStep, stepFromAddress } from './step.js';

/** A run in these states is still going. */
export const ACTIVE = new Set(['queued', 'running']);
const POLL_MS = 2000;
const HISTORY_LIMIT = 2000;

/** The run on screen: its latest state, its event stream and the progress seen on it. */
let view = null;

export const currentView = () => view;

export function closeView() {
  if (!view) return;
  view.closed = true;
  clearTimeout(view.step?.timer);
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

export function openRun(id) {
  closeView();
  const header = h('section', { class: 'card run-header', tabindex: -1, 'aria-label': 'run' });
  const steps = section('steps', 'Steps');
  const live = section('live', 'Progress');
  const result = section('result', 'Result');
  const clusters = section('clusters', 'Clusters');
  const provenance = section('provenance', 'How it was made');
  provenance.card.hidden = true;
  const waterfallBody = h('div', { id: 'waterfall', tabindex: 0, role: 'region', 'aria-label': 'Hop waterfall' });
  const waterfall = h('section', { class: 'card', id: 'waterfall-card' },
    h('h2', {}, 'Hops ', h('span', { class: 'muted' }, 'gateway → service calls: latency split into queue, compute, other server time and network')),
    waterfallBody);
  const rerun = h('section', { class: 'card rerun', id: 'rerun', hidden: true, 'aria-label': 'Re-run with changes' });
  const stepCard = h('section', { class: 'card step-panel', id: 'step', hidden: true, 'aria-label': 'The step' });
  const graphBox = h('div', { class: 'dag-box', tabindex: 0, role: 'region', 'aria-label': "The workflow's graph" });
  const graph = h('section', { class: 'card graph-card', id: 'graph' },
    h('h2', {}, 'Graph ', h('span', { class: 'muted' }, 'a step opens on a click')), graphBox);
  replace($('#view'),
    header,
    rerun,
    graph,
    stepCard,
    h('div', { class: 'grid-2' }, steps.card, live.card),
    result.card,
    clusters.card,
    provenance.card,
    waterfall);
  view = {
    id,
    run: null,
    history: new Map(),
    stream: 'connecting',
    errors: 0,
    signatures: {},
    step: null,
    el: { header, rerun, graph: graphBox, stepCard, steps: steps.body, live: live.body, result: result.body, resultCard: result.card, clusters: clusters.body, clustersCard: clusters.card, provenance: provenance.body, provenanceCard: provenance.card, waterfall: waterfallBody },
  };
  replace(header, h('p', { class: 'muted' }, `loading run ${id}…`));
  // A started or opened run is brought into view (on one column it may lie far below) and focused.
  header.scrollIntoView({ block: 'start' });
  header.focus({ preventScroll: true });
  highlightRun(id);
  loadRun(view);
}

async function loadRun(current) {
  try {
    const run = await api(runUrl(current.id));
    if (current.closed) return;
    current.run = run;
    for (const step of run.steps ?? []) seedHistory(current, step);
    render(current);
    showStep(current, stepFromAddress());
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

/** Follows the run's server-sent events until its final `run` event; polls when the stream cannot be had. */
function follow(current) {
  current.source?.close();
  const source = eventSource(`${runUrl(current.id)}/events`);
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

export function applyRun(current, run) {
  if (run.id && run.id !== current.id) return;
  // A run that has ended does not start again: an answer older than the run's end (the cancel's,
  // arriving after the stream's final event) is not applied over it.
  if (current.run && !ACTIVE.has(current.run.state) && ACTIVE.has(run.state)) return;
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
  renderStep(current);
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
  if (current.step?.id === call.step) schedule(current, 'step', () => renderStep(current));
}

function applyHop(current, hop) {
  const run = current.run;
  if (!run) return;
  const hops = run.hops ?? (run.hops = []);
  if (!hops.some((existing) => hopKey(existing) === hopKey(hop))) hops.push(hop);
  run.hopsInFlight = (run.hopsInFlight ?? []).filter((call) => hopKey(call) !== hopKey(hop));
  schedule(current, 'waterfall', () => renderWaterfall(current.el.waterfall, current.run));
  if (current.step?.id === hop.step) schedule(current, 'step', () => renderStep(current));
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
  renderStep(current);
  renderSteps(current);
  renderLive(current);
  renderResult(current);
  renderClusters(current);
  renderProvenance(current);
  renderWaterfall(current.el.waterfall, current.run);
}
