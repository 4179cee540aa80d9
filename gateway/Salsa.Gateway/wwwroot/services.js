// The services' health in the header (GET /api/services: grpc.health.v1 of each), and the
// console's own settings (GET /api/console).

import { $, h, replace } from './dom.js';
import { api } from './api.js';

const SERVICES_REFRESH_MS = 30000;

const HEALTH_TEXT = { serving: 'serving', 'not-serving': 'not serving', unreachable: 'unreachable', idle: 'idle (starts on first use)' };

let servicesTimer = 0;

export async function loadServices() {
  clearTimeout(servicesTimer);
  const summary = $('#services-summary');
  try {
    const services = await api('/api/services');
    const count = (health) => services.filter((sv) => sv.health === health).length;
    const bad = services.length - count('serving') - count('idle');
    summary.className = bad ? 'services-down' : 'services-ok';
    summary.textContent = bad ? `services: ${bad} down` : `services: ${count('serving')} serving`;
    replace($('#services-panel'), h('table', { class: 'services-table' },
      h('caption', { class: 'visually-hidden' }, 'The services the gateway calls'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'service'), h('th', { scope: 'col' }, 'mode'), h('th', { scope: 'col' }, 'health'))),
      h('tbody', {}, services.map((sv) => h('tr', {},
        h('td', { class: 'mono' }, sv.name),
        h('td', {}, sv.mode),
        h('td', {}, h('span', { class: `health health-${sv.health}` }, HEALTH_TEXT[sv.health] ?? sv.health)))))));
  } catch (error) {
    summary.className = 'services-down';
    summary.textContent = 'services: ?';
    replace($('#services-panel'), h('p', { class: 'error' }, error.message));
  } finally {
    clearTimeout(servicesTimer);
    servicesTimer = setTimeout(loadServices, SERVICES_REFRESH_MS);
  }
}


// What the services' health was is not known while the gateway does not answer: the summary says so
// (it kept "7 serving"), and asks again once the gateway is back.
window.addEventListener('salsa:connection', (event) => {
  const summary = $('#services-summary');
  if (event.detail.ok) {
    loadServices();
    return;
  }
  summary.className = 'services-down';
  summary.textContent = 'services: unknown (gateway unreachable)';
});

/** The console's links (GET /api/console): the trace viewer's page of a trace, when configured. */
export const consoleSettings = {};

/** Loads the console's settings, then calls `onLoaded` (what shows them draws again). */
export async function loadConsoleSettings(onLoaded) {
  try {
    Object.assign(consoleSettings, await api('/api/console'));
    onLoaded();
  } catch {
    // no links then
  }
}
