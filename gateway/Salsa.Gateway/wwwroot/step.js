// One step of a run, opened from its graph node, its row or its cell in the runs grid
// (#/runs/{id}/steps/{step}): its parameters, its inputs (the steps it reads) and outputs, its tries,
// the calls the gateway made for it, and its log in the page — one part per try, live while the
// step runs, searchable (GET /api/runs/{id}/steps/{step}/log).

import { h, replace } from './dom.js';
import * as format from './format.js';
import { api, askForKey, authHeaders, runUrl, stepLogUrl } from './api.js';
import { badge, refreshRuns, stepAddress } from './runs.js';
import { gatewayLink } from './run-result.js';
import { parameterForm } from './parameters.js';
import { operations } from './workflows.js';

/** While its step may still log, the log is read again this often. */
const LOG_POLL_MS = 2000;

/** The step the address opens (#/runs/{id}/steps/{step}), or null. */
export function stepFromAddress() {
  const match = /^#\/runs\/[^/?#]+\/steps\/([^/?#]+)/.exec(location.hash);
  return match ? decodeURIComponent(match[1]) : null;
}

/** Opens (or, with null, closes) the panel of `stepId` on the run on screen. */
export function showStep(current, stepId) {
  const open = current.step;
  if (open?.id === stepId) return;
  clearTimeout(open?.timer);
  current.step = stepId ? { id: stepId, log: null, query: open?.query ?? '', error: null, timer: 0, read: false } : null;
  current.el.stepCard.hidden = !stepId;
  if (!stepId) {
    replace(current.el.stepCard);
    return;
  }
  renderStep(current);
  readLog(current);
  current.el.stepCard.scrollIntoView({ block: 'start' });
  current.el.stepCard.querySelector('h2')?.focus({ preventScroll: true });
}

const FINAL = new Set(['succeeded', 'failed', 'cancelled', 'skipped', 'interrupted']);

/** Reads the step's log; again every 2 s while the step runs, and once more after it ends. */
async function readLog(current) {
  const panel = current.step;
  if (!panel || current.closed) return;
  clearTimeout(panel.timer);
  const step = current.run?.steps?.find((st) => st.id === panel.id);
  const endedBefore = step && FINAL.has(step.state);
  try {
    const response = await fetch(stepLogUrl(current.run.id, panel.id), { headers: authHeaders(), cache: 'no-store' });
    if (response.status === 401) askForKey();
    if (!response.ok) {
      const problem = await response.json().catch(() => null);
      throw new Error(`${response.status} ${problem?.detail ?? problem?.title ?? response.statusText}`);
    }
    panel.log = await response.text();
    panel.error = null;
  } catch (error) {
    panel.error = error.message;
  }
  if (current.step !== panel || current.closed) return;
  panel.read = true;
  renderLog(current);
  // A step that had ended before this read has said all it will; one still going is read again.
  panel.timer = endedBefore ? 0 : setTimeout(() => readLog(current), LOG_POLL_MS);
}

/** The step's log in parts: the gateway's lines, then one part per service job (a try each). */
function logParts(text) {
  const parts = [];
  for (const line of (text ?? '').split('\n')) {
    if (line === '') continue;
    const heading = /^# (gateway \(.*\)|\S+ job \S+ \(step .*\))$/.exec(line);
    if (heading || parts.length === 0) parts.push({ heading: heading ? heading[1] : 'log', lines: [] });
    if (!heading) parts[parts.length - 1].lines.push(line);
  }
  let tries = 0;
  for (const part of parts) if (/ job /.test(part.heading)) part.title = `try ${++tries} · ${part.heading}`;
  return parts;
}

/** A line with what the search found in it marked. */
function marked(line, query) {
  if (!query) return line;
  const lower = line.toLowerCase();
  const out = [];
  let at = 0;
  for (let found = lower.indexOf(query); found >= 0; found = lower.indexOf(query, found + query.length)) {
    out.push(line.slice(at, found), h('mark', {}, line.slice(found, found + query.length)));
    at = found + query.length;
  }
  out.push(line.slice(at));
  return out;
}

function renderLog(current) {
  const panel = current.step;
  const box = current.el.stepCard.querySelector('.step-log-body');
  if (!panel || !box) return;
  if (!panel.read) {
    replace(box, h('p', { class: 'muted' }, 'reading the log…'));
    return;
  }
  const query = panel.query.trim().toLowerCase();
  const parts = logParts(panel.log);
  let total = 0;
  let matching = 0;
  const sections = parts.map((part) => {
    const lines = query ? part.lines.filter((line) => line.toLowerCase().includes(query)) : part.lines;
    total += part.lines.length;
    matching += lines.length;
    return h('section', { class: 'log-part' },
      h('h4', {}, part.title ?? part.heading, h('span', { class: 'muted' }, ` · ${query ? `${lines.length} of ` : ''}${part.lines.length} line${part.lines.length === 1 ? '' : 's'}`)),
      lines.length || !query
        ? h('pre', { class: 'log-lines', tabindex: 0, 'aria-label': `${part.title ?? part.heading}: its lines` }, lines.map((line) => [marked(line, query), '\n']))
        : null);
  });
  const step = current.run?.steps?.find((st) => st.id === panel.id);
  current.el.stepCard.querySelector('.log-count').textContent = query ? `${matching} of ${total} lines match` : `${total} lines${step && !FINAL.has(step.state) ? ' · live' : ''}`;
  replace(box, panel.error ? h('p', { class: 'error' }, `Log: ${panel.error}`) : null, sections);
}

/**
 * What each of the step's service jobs used (a Jobs.Watch call's `resources`, once the job ended):
 * CPU time and cores, how many cores were busy on average, allocations, and the service process's
 * peak memory — which is the process's, shared with the jobs that ran beside it.
 */
function resourcesOf(step, hops) {
  const jobs = hops.filter((hop) => hop.operation === 'Jobs.Watch' && hop.resources);
  if (!jobs.length) return null;
  return [
    h('h3', {}, 'Resources ', h('span', { class: 'muted' }, 'what each try\'s job used in its service')),
    h('div', { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': `The resources of ${step.id}` }, h('table', { class: 'step-resources' },
      h('thead', {}, h('tr', {}, ['try', 'CPU time', 'cores', 'busy', 'allocated', 'peak memory (process)'].map((name, k) => h('th', { scope: 'col', class: k ? 'num' : '' }, name)))),
      h('tbody', {}, jobs.map((hop, k) => {
        const used = hop.resources;
        const busy = used.cpuMs != null && hop.computeMs > 0 ? used.cpuMs / hop.computeMs : null;
        return h('tr', {},
          h('td', {}, `try ${k + 1} · ${hop.service}`),
          h('td', { class: 'num', title: used.gridCpuMs != null ? 'its passes on the grid\'s silos included' : '' },
            used.cpuMs != null ? `${format.ms(used.cpuMs)}${used.gridCpuMs != null ? ` · ${format.ms(used.gridCpuMs)} on the grid` : ''}` : 'unknown'),
          h('td', { class: 'num' }, used.cores != null ? String(used.cores) : '–'),
          h('td', { class: 'num', title: 'CPU time ÷ compute time: the cores kept busy on average' }, busy != null ? `${busy.toFixed(2)} cores` : '–'),
          h('td', { class: 'num' }, format.bytes(used.allocatedBytes)),
          h('td', { class: 'num', title: used.processJobs > 1 ? `the process ran ${used.processJobs} jobs at once while this one ran` : 'the process ran this job alone' },
            `${format.bytes(used.peakMemoryBytes)}${used.processJobs > 1 ? ` · ${used.processJobs} jobs` : ''}`));
      })))),
  ];
}

/** The step and every step that reads it, directly or through others, in the run's order. */
export function downstreamOf(steps, stepId) {
  const found = new Set([stepId]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const step of steps) {
      if (!found.has(step.id) && (step.dependsOn ?? []).some((d) => found.has(d))) {
        found.add(step.id);
        grew = true;
      }
    }
  }
  return found;
}

/** POST …/steps/{step}/retry with `changes` for the step and those downstream, then opens the new run. */
async function retryFrom(current, stepId, changes) {
  const next = await api(`${runUrl(current.run.id)}/steps/${encodeURIComponent(stepId)}/retry`, { method: 'POST', body: { parameters: changes } });
  refreshRuns();
  location.hash = `#/runs/${next.id}`;
}

/**
 * Retry from this step (an ended run's step that ended): at once, or with changes to the parameters
 * of this step and those downstream (the others are reused, so they take none).
 */
function retryControls(current, step) {
  const run = current.run;
  if (['queued', 'running'].includes(run.state) || !FINAL.has(step.state)) return null;
  const again = downstreamOf(run.steps, step.id);
  const said = h('span', { class: 'retry-message small', role: 'status' });
  const box = h('div', { class: 'retry-form', hidden: true });
  const toggle = h('button', { type: 'button', class: 'secondary retry-changes', 'aria-expanded': 'false', onclick: () => open() }, 'Retry with changes');
  const open = async () => {
    box.hidden = !box.hidden;
    toggle.setAttribute('aria-expanded', String(!box.hidden));
    if (box.hidden) return;
    replace(box, h('p', { class: 'muted' }, 'loading the operations…'));
    try {
      const catalog = await operations();
      const part = { ...run, steps: run.steps.filter((st) => again.has(st.id)) };
      replace(box,
        h('h3', {}, `Retry from ${step.id} with changes `, h('span', { class: 'muted' }, `${[...again].join(', ')} run again; the other steps' outputs are reused`)),
        parameterForm(part, catalog, { prefix: 'retry', submitText: `Retry from ${step.id}`, onSubmit: (changes) => retryFrom(current, step.id, changes), onCancel: open }));
      box.querySelector('input, select')?.focus();
    } catch (error) {
      replace(box, h('p', { class: 'error' }, `Operations: ${error.message}`));
    }
  };
  return {
    buttons: [
      h('button', {
        type: 'button', class: 'secondary retry-now', title: `run ${[...again].join(', ')} again; reuse the other steps' outputs`,
        onclick: async (event) => {
          event.target.disabled = true;
          try {
            await retryFrom(current, step.id, {});
          } catch (error) {
            said.textContent = `Not retried: ${error.problem?.detail ?? error.message}`;
            said.className = 'retry-message small error';
            event.target.disabled = false;
          }
        },
      }, 'Retry from here'),
      toggle,
    ],
    said,
    box,
  };
}

const row = (label, value, attributes = {}) => h('tr', {}, h('th', { scope: 'row' }, label), h('td', attributes, value));

/** An output or parameter value in words: a table by its size, an object by its fields. */
function valueText(value) {
  if (Array.isArray(value)) return value.length && typeof value[0] === 'object' ? `a table of ${format.number(value.length)} rows` : value.join(', ');
  if (value && typeof value === 'object') return Object.entries(value).map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`).join(', ');
  if (typeof value === 'number') return format.compact(value);
  return String(value ?? '–');
}

/** Draws the panel of the open step from the run as it is now (called on each of its changes). */
export function renderStep(current) {
  const panel = current.step;
  const card = current.el.stepCard;
  if (!panel) return;
  const run = current.run;
  const step = run?.steps?.find((st) => st.id === panel.id);
  if (!step) {
    replace(card, h('h2', { tabindex: -1 }, `Step ${panel.id}`), h('p', { class: 'error' }, run ? `This run has no step ${panel.id}.` : 'loading…'));
    return;
  }
  // Its calls: those that ended, then those still in flight (a job's watch, while it runs).
  const hops = [
    ...(run.hops ?? []).filter((hop) => hop.step === step.id).sort((a, b) => a.start.localeCompare(b.start)),
    ...(run.hopsInFlight ?? []).filter((call) => call.step === step.id).map((call) => ({ ...call, outcome: 'in flight' })),
  ];
  const inputs = (step.dependsOn ?? []).map((id) => run.steps.find((st) => st.id === id)).filter(Boolean);
  const outputs = Object.entries(step.outputs ?? {}).filter(([key]) => key !== 'job' && key !== 'placement');
  const search = card.querySelector('.log-search') ?? h('input', {
    type: 'search', class: 'log-search', placeholder: 'find in the log', 'aria-label': 'Find in the log', spellcheck: 'false',
    value: panel.query,
    oninput: (event) => {
      current.step.query = event.target.value;
      renderLog(current);
    },
  });
  const logBody = card.querySelector('.step-log-body') ?? h('div', { class: 'step-log-body' });
  const searching = document.activeElement === search;
  // The retry controls are made again only when what they offer changes (the run or the step ends):
  // an open form keeps what the reader typed while the run's events redraw the panel.
  const retryKey = `${run.state}|${step.state}`;
  if (current.step.retryKey !== retryKey) {
    current.step.retryKey = retryKey;
    current.step.retry = retryControls(current, step);
  }
  const retry = current.step.retry;
  replace(card,
    h('div', { class: 'step-title' },
      h('h2', { tabindex: -1 }, 'Step ', h('span', { class: 'mono' }, step.id)),
      h('span', { class: 'muted mono' }, `${step.service}.${step.operation}`),
      badge(step.state),
      step.reused ? h('span', { class: 'chip', title: 'its outputs are those of the run this one retried' }, 'reused') : null,
      h('span', { class: 'spacer' }),
      retry?.buttons,
      h('button', { type: 'button', class: 'secondary', 'aria-label': `Close the step ${step.id}`, onclick: () => { location.hash = `#/runs/${encodeURIComponent(run.id)}`; } }, 'Close')),
    retry?.said,
    retry?.box,
    step.error ? h('div', { class: 'alert' }, h('strong', {}, 'Error: '), String(step.error)) : null,
    h('div', { class: 'step-facts' },
      h('div', {},
        h('h3', {}, 'Parameters'),
        Object.keys(step.parameters ?? {}).length
          ? h('table', { class: 'kv' }, h('tbody', {}, Object.entries(step.parameters).map(([name, value]) => row(name, valueText(value), { class: 'mono' }))))
          : h('p', { class: 'muted' }, 'none')),
      h('div', {},
        h('h3', {}, 'Inputs'),
        inputs.length
          ? h('ul', { class: 'plain' }, inputs.map((input) => h('li', {},
            h('a', { href: stepAddress(run.id, input.id), class: 'mono' }, input.id), ' ', badge(input.state),
            input.outputs?.dataset ? h('span', { class: 'muted mono small' }, ` dataset ${format.short(String(input.outputs.dataset))}`) : null)))
          : h('p', { class: 'muted' }, 'none: the step reads no other step'),
        h('h3', {}, 'Outputs'),
        outputs.length
          ? h('table', { class: 'kv' }, h('tbody', {}, outputs.map(([name, value]) => row(name, valueText(value), { class: 'mono', title: step.digests?.[name] ? `SHA-256 ${step.digests[name]}` : '' }))))
          : h('p', { class: 'muted' }, FINAL.has(step.state) ? 'none' : 'not yet')),
      h('div', {},
        h('h3', {}, 'Tries'),
        h('table', { class: 'kv' }, h('tbody', {},
          row('tries', String(step.attempts ?? 0)),
          row('started', format.time(step.started), { title: step.started ?? '' }),
          row('finished', format.time(step.finished), { title: step.finished ?? '' }),
          row('duration', format.ms(step.durationMs ?? format.between(step.started, step.finished, step.state === 'running'))),
          (step.jobs ?? []).map((job, k) => row(`try ${k + 1}`, `${job.service} job ${format.short(job.jobId)}`, { class: 'mono', title: job.jobId })),
          step.reused ? row('reused', 'its outputs came from an earlier run') : null)))),
    h('h3', {}, 'Calls ', h('span', { class: 'muted' }, 'the gateway → service hops of this step')),
    hops.length
      ? h('div', { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': `The calls of ${step.id}` }, h('table', { class: 'step-hops' },
        h('thead', {}, h('tr', {}, ['call', 'at', 'latency', 'service', 'queue', 'compute', 'outcome'].map((name, k) => h('th', { scope: 'col', class: k >= 2 && k <= 5 ? 'num' : '' }, name)))),
        h('tbody', {}, hops.map((hop) => h('tr', {},
          h('td', { class: 'mono' }, `${hop.service} ${hop.operation}`),
          h('td', { title: hop.start }, format.time(hop.start)),
          h('td', { class: 'num' }, hop.latencyMs != null ? format.ms(hop.latencyMs) : format.ms(format.between(hop.start, null, true))),
          h('td', { class: 'num' }, hop.serverMs != null ? format.ms(hop.serverMs) : '–'),
          h('td', { class: 'num' }, hop.queueMs != null ? format.ms(hop.queueMs) : '–'),
          h('td', { class: 'num' }, hop.computeMs != null ? format.ms(hop.computeMs) : '–'),
          h('td', {}, hop.outcome))))))
      : h('p', { class: 'muted' }, 'none yet'),
    resourcesOf(step, hops),
    h('div', { class: 'log-head' },
      h('h3', {}, 'Log'),
      search,
      h('span', { class: 'log-count muted small', 'aria-live': 'polite' }),
      gatewayLink(stepLogUrl(run.id, step.id), { class: 'small' }, 'as text')),
    logBody);
  if (searching) search.focus({ preventScroll: true });
  renderLog(current);
  // A step that starts again (a retry, a resumed run) while its panel is open is read live again.
  if (panel.read && !panel.timer && !FINAL.has(step.state)) readLog(current);
}
