// A number field checked as it is typed, by its parameter's rules in the operations' catalog (kind,
// minimum, maximum: the rules the gateway applies to the run), the field itself marked
// (aria-invalid) and its message beside it in words, not YAML positions.

import { h } from './dom.js';

const given = (value) => value !== null && value !== undefined;

/** What is wrong with the number in `field` for a parameter of `spec`, or null (an empty field is left to the default). */
export function numberProblem(field, spec, label) {
  // A number input whose text is no number ("1e", "--") reads as empty: the browser says so here.
  if (field.validity?.badInput) return `${label} must be a number; what is typed is not one.`;
  const raw = field.value.trim();
  if (raw === '') return null;
  const number = Number(raw);
  if (!Number.isFinite(number)) return `${label} must be a number.`;
  const integer = String(spec.kind ?? '').toLowerCase() === 'integer';
  if (integer && !Number.isInteger(number)) return `${label} must be a whole number.`;
  if (given(spec.minimum) && number < spec.minimum) return `${label} must be at least ${spec.minimum}.`;
  if (given(spec.maximum) && number > spec.maximum) return `${label} must be at most ${spec.maximum}.`;
  if (given(spec.exclusiveMinimum) && number <= spec.exclusiveMinimum) return `${label} must be more than ${spec.exclusiveMinimum}.`;
  if (given(spec.exclusiveMaximum) && number >= spec.exclusiveMaximum) return `${label} must be less than ${spec.exclusiveMaximum}.`;
  if (integer && !Number.isSafeInteger(number)) return `${label} is too large.`;
  return null;
}

/**
 * Watches `field`: on each change `check()` says what is wrong (or null), and the field is marked
 * and the message shown in the element returned (the field's description). `check` of the result
 * runs it now (before a submit) and returns the problem.
 */
export function watchField(field, check) {
  const error = h('small', { class: 'field-error', id: `${field.id}-error`, hidden: true });
  field.setAttribute('aria-describedby', [field.getAttribute('aria-describedby'), error.id].filter(Boolean).join(' '));
  const mark = (problem) => {
    if (problem) {
      field.setAttribute('aria-invalid', 'true');
      error.textContent = problem;
      error.hidden = false;
    } else {
      field.removeAttribute('aria-invalid');
      error.textContent = '';
      error.hidden = true;
    }
    return problem;
  };
  const run = () => mark(check());
  field.addEventListener('input', run);
  field.addEventListener('blur', run);
  return { error, check: run, mark };
}

/**
 * The gateway's refusal of a run's parameters, placed at the fields it names ("step 'cluster':
 * parameter 'maxClusters' …", "parameter override 'cluster.maxClusters' …"): each marked with its
 * reason in words, without the workflow's line and column the user never saw. Returns what the form
 * says: how many fields were marked, or the reasons once each when none could be placed.
 */
export function placeRefusal(error, fields) {
  const reasons = (Array.isArray(error?.problem?.errors) ? error.problem.errors.map((e) => e.message ?? String(e)) : [error?.problem?.detail ?? error?.message ?? String(error)])
    .map((text) => String(text).replace(/^[^\s:]+:\d+:\d+:\s*/, ''));
  let placed = 0;
  for (const reason of reasons) {
    const named = /^step '([^']+)': parameter '([^']+)' (.*)$/.exec(reason) ?? /^parameter override '([^'.]+)\.([^']+)' (.*)$/.exec(reason);
    const target = named && fields.find((f) => f.key === `${named[1]}.${named[2]}`);
    if (target?.mark) {
      target.mark(`${named[1]} · ${named[2]} ${named[3]}`);
      placed++;
    }
  }
  if (placed) return placed === 1 ? 'The gateway refused the marked value.' : `The gateway refused ${placed} values: they are marked.`;
  return [...new Set(reasons)].join('; ');
}
