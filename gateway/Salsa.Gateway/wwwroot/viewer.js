// A figure at full size: zoom (the wheel at the pointer, + and −, Fit, 1:1) and pan (drag, arrow
// keys) in a modal dialog, with the figure's downloads beside the controls.

import { $, replace } from './dom.js';

const MIN_SCALE = 0.05;
const MAX_SCALE = 16;
const STEP = 1.25;
const PAN = 60;

const view = { scale: 1, x: 0, y: 0 };
let drag = null;

function size() {
  const image = $('#viewer-image');
  // An SVG without its own size reports 0: drawn at the stage's width then.
  return { width: image.naturalWidth || $('#viewer-stage').clientWidth, height: image.naturalHeight || $('#viewer-stage').clientHeight };
}

function draw() {
  $('#viewer-image').style.transform = `translate(${view.x}px, ${view.y}px) scale(${view.scale})`;
  $('#viewer-scale').textContent = `${Math.round(view.scale * 100)} %`;
}

/** Zooms by `factor` keeping the point (px, py) of the stage where it is. */
function zoom(factor, px, py) {
  const stage = $('#viewer-stage');
  const x = px ?? stage.clientWidth / 2;
  const y = py ?? stage.clientHeight / 2;
  const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, view.scale * factor));
  view.x = x - ((x - view.x) * scale) / view.scale;
  view.y = y - ((y - view.y) * scale) / view.scale;
  view.scale = scale;
  draw();
}

function place(scale) {
  const stage = $('#viewer-stage');
  const { width, height } = size();
  view.scale = scale ?? Math.min(stage.clientWidth / width, stage.clientHeight / height, MAX_SCALE);
  view.x = (stage.clientWidth - width * view.scale) / 2;
  view.y = Math.max(0, (stage.clientHeight - height * view.scale) / 2);
  draw();
}

/** Opens the viewer on `src` (an image URL); `links` are the figure's download links. */
export function openViewer({ src, title, links = [] }) {
  setupViewer();
  const dialog = $('#viewer');
  const image = $('#viewer-image');
  $('#viewer-title').textContent = title;
  image.alt = title;
  replace($('#viewer-downloads'), links);
  image.onload = () => place();
  image.src = src;
  if (!dialog.open) dialog.showModal();
  if (image.complete && image.naturalWidth) place();
  $('#viewer-stage').focus();
}

let ready = false;

/** The dialog's controls, wired once (on the first figure opened). */
export function setupViewer() {
  if (ready) return;
  ready = true;
  const dialog = $('#viewer');
  const stage = $('#viewer-stage');
  const actions = {
    in: () => zoom(STEP),
    out: () => zoom(1 / STEP),
    fit: () => place(),
    one: () => place(1),
    close: () => dialog.close(),
  };
  dialog.addEventListener('click', (event) => {
    const action = event.target.closest?.('[data-zoom]')?.dataset.zoom;
    if (action) actions[action]();
  });
  stage.addEventListener('wheel', (event) => {
    event.preventDefault();
    const box = stage.getBoundingClientRect();
    zoom(event.deltaY < 0 ? STEP : 1 / STEP, event.clientX - box.left, event.clientY - box.top);
  }, { passive: false });
  stage.addEventListener('pointerdown', (event) => {
    drag = { id: event.pointerId, x: event.clientX - view.x, y: event.clientY - view.y };
    stage.setPointerCapture(event.pointerId);
    stage.classList.add('dragging');
  });
  stage.addEventListener('pointermove', (event) => {
    if (drag?.id !== event.pointerId) return;
    view.x = event.clientX - drag.x;
    view.y = event.clientY - drag.y;
    draw();
  });
  const release = () => {
    drag = null;
    stage.classList.remove('dragging');
  };
  stage.addEventListener('pointerup', release);
  stage.addEventListener('pointercancel', release);
  stage.addEventListener('keydown', (event) => {
    const moves = { ArrowLeft: [PAN, 0], ArrowRight: [-PAN, 0], ArrowUp: [0, PAN], ArrowDown: [0, -PAN] };
    if (moves[event.key]) {
      view.x += moves[event.key][0];
      view.y += moves[event.key][1];
      draw();
    } else if (event.key === '+' || event.key === '=') zoom(STEP);
    else if (event.key === '-') zoom(1 / STEP);
    else if (event.key === '0') place();
    else return;
    event.preventDefault();
  });
}
