// A small live line chart: one series of numbers against the progress events that carried them.

import { h, s, replace } from './dom.js';
import * as format from './format.js';

/**
 * Draws `values` (numbers, nulls skipped) into `container` as an SVG line with its last value,
 * the range on the left and the event count below. `stepped` draws a staircase (counts such as clusters).
 */
export function renderLineChart(container, { title, values, stepped = false, kind = 'objective' }) {
  const points = values.map((v, i) => [i, v]).filter(([, v]) => typeof v === 'number' && Number.isFinite(v));
  const last = points.length ? points[points.length - 1][1] : null;
  const header = h('div', { class: 'chart-head' }, h('span', { class: 'chart-title' }, title), h('span', { class: 'chart-last' }, format.compact(last)));
  if (points.length === 0) {
    replace(container, header, h('div', { class: 'chart-empty muted' }, 'waiting for progress…'));
    return;
  }

  const width = Math.max(220, Math.floor(container.clientWidth || 300));
  const height = 110;
  const left = 58;
  const right = width - 8;
  const top = 8;
  const bottom = height - 18;
  let min = Math.min(...points.map(([, v]) => v));
  let max = Math.max(...points.map(([, v]) => v));
  if (min === max) {
    const pad = Math.abs(min) * 0.05 || 1;
    min -= pad;
    max += pad;
  }
  const n = Math.max(1, values.length - 1);
  const x = (i) => left + (i / n) * (right - left);
  const y = (v) => bottom - ((v - min) / (max - min)) * (bottom - top);

  let d = '';
  points.forEach(([i, v], k) => {
    if (k === 0) d += `M${x(i).toFixed(1)},${y(v).toFixed(1)}`;
    else if (stepped) d += `H${x(i).toFixed(1)}V${y(v).toFixed(1)}`;
    else d += `L${x(i).toFixed(1)},${y(v).toFixed(1)}`;
  });
  const [lastI, lastV] = points[points.length - 1];
  const area = `${d}V${bottom}H${x(points[0][0]).toFixed(1)}Z`;

  const svg = s('svg', { class: `chart chart-${kind}`, width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': title },
    s('line', { class: 'grid', x1: left, x2: right, y1: top, y2: top }),
    s('line', { class: 'grid', x1: left, x2: right, y1: bottom, y2: bottom }),
    s('text', { class: 'tick', x: left - 6, y: top, 'dominant-baseline': 'central', 'text-anchor': 'end' }, format.compact(max)),
    s('text', { class: 'tick', x: left - 6, y: bottom, 'dominant-baseline': 'central', 'text-anchor': 'end' }, format.compact(min)),
    s('text', { class: 'tick', x: right, y: height - 4, 'text-anchor': 'end' }, `${values.length} progress events`),
    s('path', { class: 'area', d: area }),
    s('path', { class: 'line', d }),
    s('circle', { class: 'dot', cx: x(lastI), cy: y(lastV), r: 3 }));
  replace(container, header, svg);
}
