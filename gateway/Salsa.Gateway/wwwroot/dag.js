// A workflow's steps as a graph: one column per level (a step stands right of everything it
// depends on), each step coloured by its state, an arrow from each dependency; in a run, each step a
// link that opens it. Drawn at its own size (its text as large as the page's), never shrunk to fit:
// a wide graph scrolls in its box.

import { s, replace } from './dom.js';

const NODE_WIDTH = 156;
const NODE_HEIGHT = 38;
const COLUMN_GAP = 44;
const ROW_GAP = 12;

/** Each step's level: 0 without dependencies, else one more than its deepest dependency's. */
export function levels(steps) {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const level = new Map();
  const depth = (step, seen = new Set()) => {
    if (level.has(step.id)) return level.get(step.id);
    if (seen.has(step.id)) return 0;
    seen.add(step.id);
    const deps = (step.dependsOn ?? []).map((d) => byId.get(d)).filter(Boolean);
    const value = deps.length ? 1 + Math.max(...deps.map((d) => depth(d, seen))) : 0;
    level.set(step.id, value);
    return value;
  };
  steps.forEach((step) => depth(step));
  return level;
}

/**
 * Draws the steps (each with id, dependsOn and, in a run, state) into `container`; `linkOf(step)`,
 * when given, is the address each step's node opens.
 */
export function renderDag(container, steps, linkOf = null) {
  const level = levels(steps);
  const columns = [];
  for (const step of steps) (columns[level.get(step.id)] ??= []).push(step);
  const rows = Math.max(1, ...columns.map((c) => c?.length ?? 0));
  const width = columns.length * (NODE_WIDTH + COLUMN_GAP) - COLUMN_GAP;
  const height = rows * (NODE_HEIGHT + ROW_GAP) - ROW_GAP;
  const at = new Map();
  columns.forEach((column, c) => column?.forEach((step, r) => {
    // A shorter column is centred against the tallest.
    const top = ((rows - column.length) * (NODE_HEIGHT + ROW_GAP)) / 2;
    at.set(step.id, { x: c * (NODE_WIDTH + COLUMN_GAP), y: top + r * (NODE_HEIGHT + ROW_GAP) });
  }));
  const edges = steps.flatMap((step) => (step.dependsOn ?? []).filter((d) => at.has(d)).map((d) => {
    const from = at.get(d);
    const to = at.get(step.id);
    const x1 = from.x + NODE_WIDTH;
    const y1 = from.y + NODE_HEIGHT / 2;
    const x2 = to.x - 4;
    const y2 = to.y + NODE_HEIGHT / 2;
    const bend = (x2 - x1) / 2;
    return s('path', { class: 'dag-edge', d: `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`, 'marker-end': 'url(#dag-arrow)' });
  }));
  const nodes = steps.map((step) => {
    const { x, y } = at.get(step.id);
    const state = step.state ?? 'pending';
    const said = `${step.id}: ${step.service}.${step.operation} — ${state}`;
    const node = s('g', { class: `dag-node dag-${state}`, transform: `translate(${x},${y})`, dataset: { step: step.id } },
      linkOf ? null : s('title', {}, said),
      s('rect', { width: NODE_WIDTH, height: NODE_HEIGHT, rx: 6 }),
      s('text', { x: 10, y: 16, class: 'dag-id' }, step.id.length > 19 ? `${step.id.slice(0, 18)}…` : step.id),
      s('text', { x: 10, y: 31, class: 'dag-state' }, state));
    // A link is named by what it shows, the step and its state.
    return linkOf ? s('a', { href: linkOf(step), class: 'dag-link' }, node) : node;
  });
  replace(container, s('svg', {
    class: 'dag-graph', viewBox: `-2 -2 ${width + 4} ${height + 4}`, width: width + 4, height: height + 4,
    role: linkOf ? 'group' : 'img', 'aria-label': `The workflow's steps: ${steps.map((st) => `${st.id} ${st.state ?? ''}`.trim()).join(', ')}`,
  },
  s('defs', {}, s('marker', { id: 'dag-arrow', viewBox: '0 0 8 8', refX: 7, refY: 4, markerWidth: 7, markerHeight: 7, orient: 'auto' },
    s('path', { d: 'M0,0 L8,4 L0,8 z', class: 'dag-arrowhead' }))),
  edges,
  nodes));
}
