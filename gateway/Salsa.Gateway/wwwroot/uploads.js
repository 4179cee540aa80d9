// Your data: a file of places or compounds, uploaded through the gateway to the census or chem
// service (XMLHttpRequest: fetch reports no upload progress), then a run of the mashup on it.

import { $, h, replace } from './dom.js';
import * as format from './format.js';
import { ApiError, api, askForKey, authHeaders } from './api.js';
import { findWorkflow, startForm } from './workflows.js';
import { refreshRuns } from './runs.js';

const UPLOADS = {
  places: { path: '/api/uploads/places', workflow: 'census-places', what: 'places' },
  compounds: { path: '/api/uploads/compounds', workflow: 'chem-compounds', what: 'compounds' },
};

function upload(path, file, onProgress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', path);
    for (const [name, value] of Object.entries(authHeaders())) request.setRequestHeader(name, value);
    request.setRequestHeader('Content-Type', 'application/octet-stream');
    request.upload.onprogress = (event) => { if (event.lengthComputable) onProgress(event.loaded / event.total); };
    request.onerror = () => reject(new ApiError(0, 'the gateway is unreachable'));
    request.onload = () => {
      let body = null;
      try {
        body = JSON.parse(request.responseText);
      } catch {
        // not JSON
      }
      if (request.status === 201) resolve(body);
      else {
        if (request.status === 401) askForKey(body?.detail);
        reject(new ApiError(request.status, `${request.status} ${[body?.title, body?.detail].filter(Boolean).join(' — ') || request.statusText}`, body));
      }
    };
    request.send(file);
  });
}

export function setupUploads() {
  const form = $('#upload-form');
  const file = $('#upload-file');
  const name = $('#upload-name');
  const progress = $('#upload-progress');
  const result = $('#upload-result');
  const button = $('#upload-button');
  file.addEventListener('change', () => {
    if (file.files[0]) name.placeholder = file.files[0].name;
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const kind = UPLOADS[$('#upload-kind').value];
    const chosen = file.files[0];
    result.className = 'form-message';
    if (!chosen) {
      replace(result, 'Choose a file first.');
      result.className = 'form-message error';
      return;
    }
    button.disabled = true;
    progress.hidden = false;
    progress.value = 0;
    replace(result, `Uploading ${chosen.name}…`);
    try {
      const query = new URLSearchParams({ name: name.value.trim() || chosen.name });
      const answer = await upload(`${kind.path}?${query}`, chosen, (share) => { progress.value = share; });
      progress.value = 1;
      const dataset = answer.dataset;
      const refused = answer.refused ?? [];
      const start = h('button', { type: 'button', class: 'start-upload' }, `Run ${kind.workflow} on it`);
      start.addEventListener('click', async () => {
        start.disabled = true;
        try {
          const run = await api('/api/runs', { method: 'POST', body: { workflow: kind.workflow, parameters: { 'import.dataset': dataset.datasetId, 'import.file': '' } } });
          refreshRuns();
          location.hash = `#/runs/${run.id}`;
        } catch (error) {
          result.append(h('p', { class: 'error' }, error.message));
        } finally {
          start.disabled = false;
        }
      });
      const workflow = findWorkflow(kind.workflow);
      replace(result,
        h('p', { class: 'upload-done' }, `${dataset.name}: ${format.number(dataset.count)} ${kind.what}`,
          refused.length ? ` · ${refused.length} refused` : ''),
        h('p', { class: 'muted small' }, 'dataset ', h('code', {}, dataset.datasetId),
          dataset.rdkitVersion ? ` · fingerprints by RDKit ${dataset.rdkitVersion}` : ''),
        refused.length
          ? h('ul', { class: 'refused' }, refused.slice(0, 5).map((r) => h('li', {}, `line ${r.line} (${r.id}): ${r.reason}`)))
          : null,
        start,
        workflow ? startForm(workflow, { 'import.dataset': dataset.datasetId, 'import.file': '' }, `or run ${kind.workflow} on it with parameters`) : null);
    } catch (error) {
      replace(result, error.message);
      result.className = 'form-message error';
    } finally {
      button.disabled = false;
      progress.hidden = true;
    }
  });
}
