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
  const run = () => {
    const problem = check();
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
  field.addEventListener('input', run);
  field.addEventListener('blur', run);
  return { error, check: run };
}
