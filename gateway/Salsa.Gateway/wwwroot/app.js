// The gateway's web console: workflows to start, your data to upload, the runs, and one run live —
// its steps, the running step's progress from the event stream, the result image, the tables and
// the hop waterfall. Talks to nothing but the gateway's REST API (docs/gateway.md); each part is a
// module of its own, this one starts them and routes the address. The home page loads only what it
// shows; a run's modules and the datasets page are loaded when first opened (bench/console).

import { $, h, replace } from './dom.js';
import { setupCredentials } from './api.js';
import { loadWorkflows } from './workflows.js';
import { setupUploads } from './uploads.js';
import { currentRunId, followRuns, highlightRun, refreshRuns, runsListed, setupRunsFilter, setupRunsViews } from './runs.js';
import { loadConsoleSettings, loadServices } from './services.js';

/** A run's modules (one run live, its step, its waterfall), once a run has been opened; else null. */
let runPage = null;
let runPageLoading = null;

function loadRunPage() {
  runPageLoading ??= Promise.all([import('./run.js'), import('./run-view.js'), import('./waterfall.js'), import('./step.js')])
    .then(([run, view, waterfall, step]) => (runPage = { ...run, ...view, ...waterfall, ...step }));
  return runPageLoading;
}

const currentView = () => runPage?.currentView() ?? null;
const closeView = () => runPage?.closeView();

// ---------------------------------------------------------------------------------------------
// Home and routing

/**
 * Where the runs history stands: the home page's main pane, full width, where there is room for
 * each run's parameters; beside an open run, the sidebar under the workflows.
 */
function placeRuns(where) {
  const card = $('#runs-card');
  const target = where === 'main' ? $('.main-pane') : $('.sidebar');
  if (card.parentElement !== target) target.append(card);
  document.body.dataset.page = where === 'main' ? 'home' : 'run';
}

function home() {
  closeView();
  highlightRun(null);
  placeRuns('main');
  replace($('#view'), h('section', { class: 'welcome' },
    h('h1', {}, 'Workflow gateway'),
    h('p', { class: 'muted' }, 'Start a workflow from the list of workflows; open a run below to follow its steps, its progress, its result and every hop the gateway made to the services. ',
      'REST: ', h('a', { href: '/api/workflows' }, '/api/workflows'), ' · ', h('a', { href: '/api/runs' }, '/api/runs'), ' · ', h('a', { href: '/scalar' }, 'API reference'))));
}

async function route() {
  const id = currentRunId();
  if (/^#\/datasets\b/.test(location.hash)) {
    closeView();
    highlightRun(null);
    placeRuns('side');
    document.body.dataset.page = 'datasets';
    const { openDatasets } = await import('./datasets.js');
    if (/^#\/datasets\b/.test(location.hash)) openDatasets();
  } else if (id) {
    placeRuns('side');
    const page = await loadRunPage();
    if (currentRunId() !== id) return; // the address moved on while the modules loaded
    if (currentView()?.id !== id) page.openRun(id);
    else page.showStep(currentView(), page.stepFromAddress());
  } else {
    home();
  }
}

// The charts and the waterfall are drawn to their container's width: redraw when it changes
// (a window resize, a scrollbar appearing).
let resizeTimer = 0;
let drawnWidth = 0;
new ResizeObserver(([entry]) => {
  const width = Math.round(entry.contentRect.width);
  if (width === drawnWidth) return;
  drawnWidth = width;
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    const view = currentView();
    if (view?.run) {
      runPage.renderLive(view);
      runPage.renderWaterfall(view.el.waterfall, view.run);
    }
  }, 100);
}).observe($('#view'));
window.addEventListener('hashchange', route);

setupCredentials(() => {
  loadWorkflows();
  loadServices();
  followRuns();
  refreshRuns();
  const view = currentView();
  if (view) view.id = null; // reopen the run with the new credentials
  route();
});
setupUploads();
setupRunsFilter();
setupRunsViews();
loadWorkflows();
loadConsoleSettings(() => {
  const view = currentView();
  if (view?.run) runPage.renderHeader(view);
});
loadServices();
// The runs list is read once the runs' stream has begun (its `ready`: a list read then misses
// nothing), so a page load asks for it once; should the stream not begin soon, it is read anyway.
setTimeout(() => { if (!runsListed()) refreshRuns(); }, 2000);
route();
// The runs' stream holds a connection for as long as the page is open: opened once the page has
// loaded, so it does not take one of the browser's six connections to the gateway from the page's
// own files.
if (document.readyState === 'complete') followRuns();
else window.addEventListener('load', followRuns, { once: true });
