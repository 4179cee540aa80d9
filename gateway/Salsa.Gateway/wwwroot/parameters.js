// A run's parameters: shown as the run recorded them, and a form to change them — generated from the
// operations' catalog (GET /api/operations: each parameter's kind, default, bounds and help) for the
// run's steps, each field filled with the value the step ran with.

import { h } from './dom.js';
import * as format from './format.js';
import { numberProblem, placeRefusal, watchField } from './fields.js';

/** "cluster.maxClusters=8, map.width=640", or "the workflow's defaults" when none was overridden. */
export function parametersText(parameters) {
  const entries = Object.entries(parameters ?? {});
  if (entries.length === 0) return "the workflow's values";
  return entries.map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`).join(', ');
}

/**
 * A run's parameters as compact chips ("cluster.maxClusters 8"), each whole in its title; an id is
 * cut to its first 8 characters unless `names` (id → name) knows it.
 */
export function parameterChips(parameters, names = new Map()) {
  // An override emptied (an upload's run clears the workflow's file) says nothing to the reader.
  const entries = Object.entries(parameters ?? {}).filter(([, value]) => value !== '');
  if (entries.length === 0) return [h('span', { class: 'muted small' }, "the workflow's values")];
  return entries.map(([name, value]) => {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    const known = typeof value === 'string' ? names.get(value) : undefined;
    const shown = known ?? format.short(text, 32);
    return h('span', { class: 'chip', title: `${name} = ${text}${known ? ` (${known})` : ''}` }, h('span', { class: 'chip-key' }, name), ' ', shown || '""');
  });
}

const fieldId = (step, name, prefix = 'p') => `${prefix}-${step}-${name}`.replace(/[^\w-]/g, '_');

function bounds(spec) {
  const parts = [];
  if (spec.minimum !== null && spec.minimum !== undefined) parts.push(`≥ ${spec.minimum}`);
  if (spec.maximum !== null && spec.maximum !== undefined) parts.push(`≤ ${spec.maximum}`);
  if (Array.isArray(spec.allowed) && spec.allowed.length) parts.push(`one of ${spec.allowed.join(', ')}`);
  return parts.join(', ');
}

/** One input for one parameter, by its kind; `value` is what the step ran with (undefined: the default). */
function input(id, spec, value) {
  const common = { id, name: id, 'aria-describedby': `${id}-help` };
  const kind = String(spec.kind ?? 'String').toLowerCase();
  if (kind === 'boolean') {
    const select = h('select', common,
      h('option', { value: '' }, `default (${spec.default ?? 'none'})`),
      h('option', { value: 'true' }, 'true'),
      h('option', { value: 'false' }, 'false'));
    select.value = value === true ? 'true' : value === false ? 'false' : '';
    return select;
  }
  if (Array.isArray(spec.allowed) && spec.allowed.length && kind === 'string') {
    const select = h('select', common,
      h('option', { value: '' }, `default (${spec.default ?? 'none'})`),
      spec.allowed.map((option) => h('option', { value: option }, option)));
    select.value = typeof value === 'string' ? value : '';
    return select;
  }
  if (kind === 'integer' || kind === 'number') {
    return h('input', {
      ...common,
      type: 'number',
      inputmode: kind === 'integer' ? 'numeric' : 'decimal',
      step: kind === 'integer' ? 1 : 'any',
      min: spec.minimum ?? undefined,
      max: spec.maximum ?? undefined,
      placeholder: spec.default !== null && spec.default !== undefined ? String(spec.default) : 'default',
      value: typeof value === 'number' ? String(value) : undefined,
    });
  }
  const text = Array.isArray(value) ? value.join(', ') : typeof value === 'string' ? value : undefined;
  return h('input', {
    ...common,
    type: 'text',
    spellcheck: 'false',
    placeholder: kind.endsWith('list') ? 'comma-separated' : spec.default !== null && spec.default !== undefined ? String(spec.default) : 'default',
    value: text,
  });
}

/** The field's value as JSON, or undefined when left empty (the operation's default applies). */
function read(field, spec) {
  const raw = field.value.trim();
  if (raw === '') return undefined;
  const kind = String(spec.kind ?? 'String').toLowerCase();
  if (kind === 'boolean') return raw === 'true';
  if (kind === 'integer' || kind === 'number') return Number(raw); // checked as typed (numberProblem)
  if (kind === 'numberlist') return raw.split(',').map((part) => Number(part.trim()));
  if (kind === 'stringlist') return raw.split(',').map((part) => part.trim()).filter(Boolean);
  return raw;
}

/**
 * The form: a fieldset per step with a field per parameter of its operation, filled with what the step
 * ran with. `onSubmit` receives the changes against that — the changed values, and null for an
 * override emptied (the workflow's own value applies again; an empty field that was no override
 * changes nothing) — and returns a promise; its error is shown in the form. `fixed` parameters
 * (step.parameter → value) get no field and are always sent (an upload's dataset); `prefix` keeps
 * the fields' ids apart from another form's on the page.
 */
export function parameterForm(run, operations, { submitText, onSubmit, onCancel, fixed = {}, prefix = 'p' }) {
  const specs = new Map(operations.map((operation) => [`${operation.service}.${operation.operation}`, operation]));
  const fields = [];
  const fieldsets = (run.steps ?? []).map((step) => {
    const operation = specs.get(`${step.service}.${step.operation}`);
    const parameters = operation?.parameters ?? [];
    if (parameters.length === 0) return null;
    return h('fieldset', { class: 'parameter-step' },
      h('legend', {}, h('span', { class: 'mono' }, step.id), ` — ${step.service}.${step.operation}`),
      parameters.filter((spec) => !(`${step.id}.${spec.name}` in fixed)).map((spec) => {
        const id = fieldId(step.id, spec.name, prefix);
        const ran = step.parameters?.[spec.name];
        const field = input(id, spec, ran);
        const kind = String(spec.kind ?? '').toLowerCase();
        const numeric = kind === 'integer' || kind === 'number';
        const watched = watchField(field, () => (numeric ? numberProblem(field, spec, `${step.id} · ${spec.name}`) : null));
        fields.push({ key: `${step.id}.${spec.name}`, field, spec, ran, check: watched.check, mark: watched.mark });
        const help = [spec.description, bounds(spec), spec.default !== null && spec.default !== undefined ? `default ${spec.default}` : ''].filter(Boolean).join(' · ');
        return h('div', { class: 'parameter' },
          h('label', { for: id }, spec.name, spec.required ? h('span', { class: 'required', title: 'required' }, ' *') : null),
          field,
          watched.error,
          h('small', { id: `${id}-help`, class: 'help' }, help));
      }));
  });
  const message = h('div', { class: 'form-message', role: 'status', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit' }, submitText);
  const form = h('form', { class: 'parameter-form', novalidate: true },
    fieldsets,
    h('div', { class: 'form-actions' },
      submit,
      onCancel ? h('button', { type: 'button', class: 'secondary', onclick: onCancel }, 'Close') : null),
    message);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    message.textContent = '';
    message.className = 'form-message';
    const changes = { ...fixed };
    // Every field checked as when it was typed: a run never starts with a value the form refused.
    const invalid = fields.filter(({ check }) => check?.());
    if (invalid.length) {
      message.textContent = invalid.length === 1
        ? invalid[0].field.closest('.parameter').querySelector('.field-error').textContent
        : `${invalid.length} fields need another value: they are marked.`;
      message.className = 'form-message error';
      invalid[0].field.focus();
      return;
    }
    try {
      for (const { key, field, spec, ran } of fields) {
        const value = read(field, spec);
        if (value === undefined) {
          if (ran !== undefined && key in (run.parameters ?? {})) changes[key] = null; // an override cleared
          continue;
        }
        if (JSON.stringify(value) !== JSON.stringify(ran)) changes[key] = value;
      }
    } catch (error) {
      message.textContent = error.message;
      message.className = 'form-message error';
      return;
    }
    submit.disabled = true;
    try {
      await onSubmit(changes);
    } catch (error) {
      message.textContent = placeRefusal(error, fields);
      message.className = 'form-message error';
      fields.find((f) => f.field.getAttribute('aria-invalid') === 'true')?.field.focus();
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}
