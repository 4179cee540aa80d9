// How numbers, times and sizes read in the console (always en-US digits, local clock times).

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const decimals = [0, 1, 2, 3, 4].map((d) => new Intl.NumberFormat('en-US', { minimumFractionDigits: 0, maximumFractionDigits: d }));

/** A table cell's or a gauge's number: thousands separators, a few significant decimals, exponents at the extremes. */
export function number(value) {
  if (value === null || value === undefined || value === '') return '–';
  if (typeof value !== 'number') return String(value);
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return Math.abs(value) >= 1e15 ? value.toExponential(3) : integer.format(value);
  const a = Math.abs(value);
  if (a >= 1e9 || a < 1e-4) return value.toExponential(3);
  if (a >= 1000) return decimals[0].format(value);
  if (a >= 100) return decimals[1].format(value);
  if (a >= 1) return decimals[2].format(value);
  return decimals[4].format(value);
}

/** Milliseconds as "0.42 ms", "12.3 ms", "845 ms", "12.4 s", "3 min 05 s". */
export function ms(value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  const a = Math.abs(value);
  if (a < 1) return `${value.toFixed(2)} ms`;
  if (a < 100) return `${value.toFixed(1)} ms`;
  if (a < 1000) return `${value.toFixed(0)} ms`;
  if (a < 60_000) return `${(value / 1000).toFixed(a < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(value / 60_000);
  const seconds = Math.floor((value % 60_000) / 1000);
  if (minutes < 60) return `${minutes} min ${String(seconds).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** The milliseconds between two ISO instants; to now while the second is missing and `open`. */
export function between(start, end, open = false) {
  if (!start) return null;
  const from = Date.parse(start);
  const to = end ? Date.parse(end) : open ? Date.now() : NaN;
  return Number.isFinite(from) && Number.isFinite(to) ? Math.max(0, to - from) : null;
}

/** An ISO instant as a local clock time, with the date when it is not today. */
export function time(iso) {
  if (!iso) return '–';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  const clock = date.toLocaleTimeString('en-GB', { hour12: false });
  const today = new Date();
  return date.toDateString() === today.toDateString()
    ? clock
    : `${date.toLocaleDateString('en-CA')} ${clock}`;
}

/** How long ago an ISO instant was: "12 s ago", "5 min ago". */
export function ago(iso) {
  const elapsed = between(iso, null, true);
  if (elapsed === null) return '';
  if (elapsed < 60_000) return `${Math.round(elapsed / 1000)} s ago`;
  if (elapsed < 3_600_000) return `${Math.round(elapsed / 60_000)} min ago`;
  if (elapsed < 86_400_000) return `${Math.round(elapsed / 3_600_000)} h ago`;
  return `${Math.round(elapsed / 86_400_000)} d ago`;
}

/** Bytes as "812 B", "793.3 KiB", "12.1 MiB". */
export function bytes(value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  if (value < 1024) return `${value} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let v = value / 1024;
  let unit = 0;
  while (v >= 1024 && unit < units.length - 1) {
    v /= 1024;
    unit += 1;
  }
  return `${v.toFixed(v < 10 ? 2 : 1)} ${units[unit]}`;
}

/** 1, 2 or 5 times a power of ten: a step that puts about `count` ticks on [0, span]. */
export function niceStep(span, count) {
  if (!(span > 0) || !(count > 0)) return 1;
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const fraction = raw / power;
  return (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * power;
}

/** A number for a narrow place (a gauge, an axis): like `number`, with exponents from a million up. */
export function compact(value) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return number(value);
  const a = Math.abs(value);
  if (a >= 1e6 || (a > 0 && a < 1e-3)) return value.toExponential(3).replace('e+', 'e');
  return number(value);
}

/** A GUID, as the API writes ids. */
export const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A value for a chip: an id cut to its first 8 characters, other text to `max`. */
export function short(text, max = 24) {
  if (GUID.test(text)) return `${text.slice(0, 8)}…`;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
