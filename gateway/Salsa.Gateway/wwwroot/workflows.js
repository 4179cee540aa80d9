// The workflows to start: each as a card with its graph, Kmax where it clusters, and its parameters'
// form generated from the operations' catalog (GET /api/workflows, GET /api/operations, POST /api/runs).

import { $, codeLines, h, replace } from './dom.js';
import { api } from './api.js';
import { levels } from './dag.js';
import { parameterForm } from './parameters.js';
import { numberProblem, watchField } from './fields.js';
import { refreshRuns } from './runs.js';

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
    const kmax = hasCluster ? h('input', { class: 'kmax', id: `kmax-${workflow.name}`, type: 'number', min: 1, step: 1, placeholder: 'default', 'aria-label': 'Kmax (cluster.maxClusters)' }) : null;
    // Kmax is checked by the catalog's rules for the cluster step's maxClusters (fetched when first
    // typed into); until it has come, by its lower bound.
    let kmaxSpec = { kind: 'Integer', minimum: 1 };
    const kmaxField = kmax ? watchField(kmax, () => numberProblem(kmax, kmaxSpec, 'Kmax')) : null;
    const loadKmaxSpec = async () => {
      const cluster = (workflow.steps ?? []).find((step) => step.id === 'cluster');
      const operation = (await operations()).find((o) => o.service === cluster.service && o.operation === cluster.operation);
      kmaxSpec = operation?.parameters?.find((p) => p.name === 'maxClusters') ?? kmaxSpec;
      if (Number.isFinite(kmaxSpec.maximum)) kmax.max = kmaxSpec.maximum;
    };
    kmax?.addEventListener('focus', () => loadKmaxSpec().then(() => kmax.value !== '' && kmaxField.check()).catch(() => {}), { once: true });
    const message = h('div', { class: 'form-message' });
    const button = h('button', { class: 'start', type: 'button', 'aria-label': `Start ${workflow.name}` }, 'Start');
    button.addEventListener('click', async () => {
      message.textContent = '';
      message.className = 'form-message';
      const parameters = {};
      if (kmax) {
        await loadKmaxSpec().catch(() => {});
        if (kmaxField.check()) {
          kmax.focus();
          return; // the field says why, beside it
        }
        if (kmax.value !== '') parameters['cluster.maxClusters'] = Number(kmax.value);
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
        kmaxField?.error,
        errors.length ? null : startForm(workflow, {}, 'parameters'),
        yamlOf(workflow.name)),
      errors.length
        ? h('ul', { class: 'workflow-errors' }, errors.map((e) => h('li', {}, e.line ? `line ${e.line}${e.column ? `:${e.column}` : ''}: ` : '', e.message ?? String(e))))
        : null,
      message);
  }));
}

/** A disclosure with the workflow's file, read-only with its line numbers (read when first opened). */
function yamlOf(name) {
  const details = h('details', { class: 'workflow-yaml' }, h('summary', {}, 'YAML'));
  details.addEventListener('toggle', async () => {
    if (!details.open || details.querySelector('pre, .error')) return;
    try {
      const workflow = await api(`/api/workflows/${encodeURIComponent(name)}`);
      details.append(codeLines(workflow.yaml, `${name}: its workflow file`));
    } catch (error) {
      details.append(h('p', { class: 'error' }, `YAML: ${error.message}`));
    }
  });
  return details;
}

/** POST /api/runs, then opens the run. */
export async function startRun(workflow, parameters) {
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
export function startForm(workflow, fixed, summaryText) {
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


/** A workflow the gateway listed, by name. */
export const findWorkflow = (name) => workflowList.find((w) => w.name === name);

let workflowList = [];

export async function loadWorkflows() {
  try {
    workflowList = await api('/api/workflows');
    renderWorkflows(workflowList);
    const filter = $('#filter-workflow');
    const chosen = filter.dataset.wanted ?? filter.value; // the address's, on the first load
    delete filter.dataset.wanted;
    replace(filter, h('option', { value: '' }, 'all'), workflowList.map((w) => h('option', { value: w.name }, w.name)));
    filter.value = chosen;
  } catch (error) {
    replace($('#workflows'), h('p', { class: 'error' }, `Workflows: ${error.message}`), h('button', { type: 'button', class: 'link', onclick: loadWorkflows }, 'retry'));
  }
}

let operationsLoading = null;
let operationsLoaded = null;

/** The operations' catalog, fetched once (again after a failure). */
export function operations() {
  operationsLoading ??= api('/api/operations')
    .then((list) => { operationsLoaded = list; return list; })
    .catch((error) => { operationsLoading = null; throw error; });
  return operationsLoading;
}

/** The catalog's entry for an operation when the catalog has come (else undefined; operations() fetches it). */
export const operationOf = (service, operation) => operationsLoaded?.find((o) => o.service === service && o.operation === operation);

