// The hop waterfall: one row per gateway → service call, placed at its offset from the run's start,
// as long as the latency the gateway observed, split into what the service says it spent (queue,
// compute, the rest of its server time) and the network; what nobody accounts for stays "latency".

import { h, s, replace } from './dom.js';
import * as format from './format.js';

export const SEGMENTS = [
  { key: 'queue', label: 'queue' },
  { key: 'compute', label: 'compute' },
  { key: 'server', label: 'server (other)' },
  { key: 'network', label: 'network' },
  { key: 'latency', label: 'latency (unattributed)' },
];

const finite = (v) => typeof v === 'number' && Number.isFinite(v);
const positive = (v) => (finite(v) && v > 0 ? v : 0);

/** The segments of one hop's bar, in milliseconds, summing to at most its latency. */
export function segmentsOf(hop) {
  const latency = positive(hop.latencyMs);
  const queue = positive(hop.queueMs);
  const compute = positive(hop.computeMs);
  const server = finite(hop.serverMs) ? positive(hop.serverMs - queue - compute) : 0;
  const network = positive(hop.networkMs);
  const parts = [
    ['queue', queue],
    ['compute', compute],
    ['server', server],
    ['network', network],
  ];
  const known = parts.reduce((sum, [, v]) => sum + v, 0);
  // Clocks of two processes: when the parts claim more than the latency, shrink them to fit.
  const scale = known > latency && known > 0 ? latency / known : 1;
  const result = parts.map(([key, v]) => ({ key, ms: v * scale })).filter((p) => p.ms > 0);
  const rest = latency - known * scale;
  if (rest > latency * 1e-6) result.push({ key: 'latency', ms: rest });
  return result;
}

function tooltip(hop, offset) {
  const lines = [
    `${hop.step} · ${hop.service}.${hop.operation}`,
    `start      ${hop.start} (+${format.ms(offset)})`,
    `latency    ${format.ms(hop.latencyMs)}`,
    `server     ${format.ms(hop.serverMs)}`,
    `queue      ${format.ms(hop.queueMs)}`,
    `compute    ${format.ms(hop.computeMs)}`,
    `network    ${format.ms(hop.networkMs)}`,
    `request    ${format.bytes(hop.requestBytes)}`,
    `response   ${format.bytes(hop.responseBytes)}`,
    `retries    ${hop.retries ?? 0}`,
    `outcome    ${hop.outcome ?? '–'}`,
  ];
  for (const [key, value] of Object.entries(hop)) {
    if (!['step', 'service', 'operation', 'start', 'latencyMs', 'serverMs', 'queueMs', 'computeMs', 'networkMs',
      'requestBytes', 'responseBytes', 'retries', 'outcome'].includes(key) && value !== null && typeof value !== 'object') {
      lines.push(`${key.padEnd(10)} ${value}`);
    }
  }
  return lines.join('\n');
}

function tickLabel(value, step) {
  if (step >= 1000) return `${format.number(value / 1000)} s`;
  return `${format.number(value)} ms`;
}

const okOutcome = (outcome) => !outcome || /^(ok|succeeded|success)$/i.test(outcome);

/** Draws the run's hops into `container` (an SVG sized to the container's width). */
export function renderWaterfall(container, run) {
  // Calls still in flight are drawn too, as long as they have lasted so far.
  const now = Date.now();
  const flying = (run.hopsInFlight ?? []).map((call) => ({ ...call, latencyMs: Math.max(0, now - Date.parse(call.start)), outcome: 'in flight', inFlight: true }));
  const hops = [...(run.hops ?? []), ...flying]
    .map((hop, index) => ({ hop, index, at: Date.parse(hop.start) }))
    .sort((a, b) => (a.at - b.at) || (a.index - b.index));
  if (hops.length === 0) {
    replace(container, h('p', { class: 'muted' }, run.state === 'queued' ? 'No hops yet: the run is queued.' : 'No hops recorded yet.'));
    return;
  }

  const starts = hops.map((r) => r.at).filter(Number.isFinite);
  const runStart = Date.parse(run.started ?? run.created);
  const origin = Math.min(Number.isFinite(runStart) ? runStart : Infinity, ...starts);
  const rows = hops.map(({ hop, at }) => ({ hop, offset: Number.isFinite(at) ? at - origin : 0 }));
  const span = Math.max(1, ...rows.map((r) => r.offset + positive(r.hop.latencyMs)));

  const width = Math.max(560, Math.floor(container.clientWidth || 900));
  const dense = rows.length > 24;
  const rowHeight = dense ? 15 : 22;
  const barHeight = dense ? 10 : 14;
  const fontSize = dense ? 10 : 11.5;
  const labelWidth = Math.min(280, Math.round(width * 0.3));
  const valueWidth = 64;
  const left = labelWidth + 8;
  const right = width - valueWidth;
  const top = 22;
  const plot = right - left;
  const height = top + rows.length * rowHeight + 8;
  const x = (msValue) => left + (msValue / span) * plot;
  const maxLabel = Math.floor((labelWidth - 4) / (fontSize * 0.62)); // monospace: about 0.6 em a character
  const clip = (text) => (text.length > maxLabel ? `${text.slice(0, maxLabel - 1)}…` : text);

  const step = format.niceStep(span, Math.max(2, Math.floor(plot / 90)));
  const axis = s('g', { class: 'axis' });
  for (let t = 0; t <= span + step * 1e-9; t += step) {
    const tx = x(t);
    axis.append(
      s('line', { class: 'grid', x1: tx, x2: tx, y1: top - 4, y2: height - 6 }),
      s('text', { x: tx, y: top - 8, 'text-anchor': t === 0 ? 'start' : 'middle' }, tickLabel(t, step)),
    );
  }

  const body = s('g', { class: 'rows' });
  rows.forEach(({ hop, offset }, i) => {
    const y = top + i * rowHeight;
    const barY = y + (rowHeight - barHeight) / 2;
    const x0 = x(offset);
    const w = Math.max(1.5, (positive(hop.latencyMs) / span) * plot);
    const failed = !hop.inFlight && !okOutcome(hop.outcome);
    const row = s('g', { class: `hop-row${failed ? ' failed' : ''}${hop.inFlight ? ' in-flight' : ''}${i % 2 ? ' odd' : ''}` },
      s('title', {}, hop.inFlight ? `${hop.step} · ${hop.service}.${hop.operation}\nin flight for ${format.ms(hop.latencyMs)}` : tooltip(hop, offset)),
      s('rect', { class: 'band', x: 0, y, width, height: rowHeight }),
      s('text', { class: 'label', x: labelWidth, y: y + rowHeight / 2, 'dominant-baseline': 'central', 'text-anchor': 'end' },
        clip(`${hop.step ?? '?'} · ${hop.service ?? '?'}.${hop.operation ?? '?'}`)),
      s('rect', { class: 'hop', x: x0, y: barY, width: w, height: barHeight, rx: 1.5 }));
    let sx = x0;
    for (const segment of hop.inFlight ? [] : segmentsOf(hop)) {
      const sw = (segment.ms / span) * plot;
      if (sw >= 0.25) row.append(s('rect', { class: `seg seg-${segment.key}`, x: sx, y: barY, width: sw, height: barHeight }));
      sx += sw;
    }
    // The latency after the bar; inside its end when the bar reaches the right edge.
    const valueX = x0 + w + 4;
    const outside = valueX + 80 < width;
    const inside = !outside && w > 90;
    row.append(s('text', {
      class: `value${inside ? ' inside' : ''}`,
      x: outside ? valueX : inside ? x0 + w - 4 : x0 - 4,
      y: y + rowHeight / 2, 'dominant-baseline': 'central', 'text-anchor': outside ? 'start' : 'end',
    }, hop.inFlight ? `${format.ms(hop.latencyMs)} …` : format.ms(hop.latencyMs), hop.retries > 0 ? s('tspan', { class: 'retries' }, ` ↻${hop.retries}`) : null));
    body.append(row);
  });

  const svg = s('svg', {
    class: 'waterfall', width, height, viewBox: `0 0 ${width} ${height}`, 'font-size': fontSize, role: 'img',
    'aria-label': `Hop waterfall: ${rows.length} hops over ${format.ms(span)}`,
  }, axis, body, s('line', { class: 'baseline', x1: left, x2: left, y1: top - 4, y2: height - 6 }));

  const legend = h('div', { class: 'legend' },
    SEGMENTS.map((segment) => h('span', { class: 'legend-item' }, h('i', { class: `swatch seg-${segment.key}` }), segment.label)),
    flying.length ? h('span', { class: 'legend-item' }, h('i', { class: 'swatch in-flight-swatch' }), 'in flight') : null,
    h('span', { class: 'legend-note muted' }, `${rows.length - flying.length} hops${flying.length ? ` and ${flying.length} in flight` : ''} · ${format.ms(span)} from the run's start · hover a row, or open the table, for every field`));
  // The same hops as a table, for the keyboard and screen readers (the bars' details are tooltips).
  const wasOpen = container.querySelector('details.hop-details')?.open ?? false;
  const cell = (value, numeric) => h('td', { class: numeric ? 'num' : '' }, value);
  const table = h('details', { class: 'hop-details', open: wasOpen },
    h('summary', {}, 'Every hop as a table'),
    h('div', { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'Hops table' }, h('table', { class: 'data-table hops-table' },
      h('thead', {}, h('tr', {}, ['step', 'call', 'start', 'latency', 'queue', 'compute', 'server', 'network', 'request', 'response', 'retries', 'outcome']
        .map((name, i) => h('th', { scope: 'col', class: i >= 2 && i <= 10 ? 'num' : '' }, name)))),
      h('tbody', {}, rows.filter(({ hop }) => !hop.inFlight).map(({ hop, offset }) => h('tr', {},
        cell(hop.step ?? '?'), cell(`${hop.service ?? '?'}.${hop.operation ?? '?'}`, false),
        cell(`+${format.ms(offset)}`, true), cell(format.ms(hop.latencyMs), true), cell(format.ms(hop.queueMs), true),
        cell(format.ms(hop.computeMs), true), cell(format.ms(hop.serverMs), true), cell(format.ms(hop.networkMs), true),
        cell(format.bytes(hop.requestBytes), true), cell(format.bytes(hop.responseBytes), true), cell(String(hop.retries ?? 0), true),
        cell(hop.outcome ?? '–')))))));
  replace(container, legend, svg, table);
}
