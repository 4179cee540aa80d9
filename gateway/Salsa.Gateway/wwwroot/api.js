// The gateway's REST API as the console calls it: credentials (a gateway that listens beyond
// loopback asks for an API key, docs/security.md), JSON requests with ProblemDetails read into
// errors, files fetched with the key, and server-sent events that can send it.

import { $ } from './dom.js';

export const runUrl = (id) => `/api/runs/${encodeURIComponent(id)}`;
export const artifactUrl = (id, name) => `${runUrl(id)}/artifacts/${encodeURIComponent(name)}`;
export const stepLogUrl = (id, step) => `${runUrl(id)}/steps/${encodeURIComponent(step)}/log`;

// ---------------------------------------------------------------------------------------------
// Credentials: the key is kept for this browser tab only (sessionStorage) and sent as X-Api-Key on
// every request.

const KEY_STORAGE = 'salsa.apiKey';
export const apiKey = () => sessionStorage.getItem(KEY_STORAGE);
export const authHeaders = () => (apiKey() ? { 'X-Api-Key': apiKey() } : {});

function showKeyStatus() {
  const button = $('#credentials');
  button.hidden = !apiKey() && !button.dataset.asked;
  button.textContent = apiKey() ? 'API key ✓' : 'API key';
}

/** Asks for an API key (the gateway answered 401), then loads what the page shows again. */
export function askForKey(reason) {
  const dialog = $('#key-dialog');
  $('#credentials').dataset.asked = 'yes';
  showKeyStatus();
  // Several requests meet the 401 at once: the gateway's own words, once one has them, stay.
  if (reason || !dialog.open) $('#key-reason').textContent = reason ?? 'This gateway asks for an API key.';
  if (!dialog.open) dialog.showModal();
}

/** The key's button and dialog; `onChange` loads what the page shows again once the key changes. */
export function setupCredentials(onChange) {
  const dialog = $('#key-dialog');
  $('#credentials').addEventListener('click', () => askForKey(apiKey() ? 'The API key this tab sends; replace or forget it.' : null));
  $('#key-form').addEventListener('submit', (event) => {
    const key = $('#key-input').value.trim();
    if (event.submitter?.value === 'forget' || !key) sessionStorage.removeItem(KEY_STORAGE);
    else sessionStorage.setItem(KEY_STORAGE, key);
    $('#key-input').value = '';
    dialog.close();
    showKeyStatus();
    onChange();
  });
  showKeyStatus();
}

/** A file of the gateway: fetched with the credentials (an <img> or a link cannot send them). */
export async function fetchBlobUrl(path) {
  const response = await fetch(path, { headers: authHeaders(), cache: 'no-store' });
  if (response.status === 401) askForKey();
  if (!response.ok) throw new ApiError(response.status, `${response.status} ${response.statusText}`);
  return URL.createObjectURL(await response.blob());
}

export class ApiError extends Error {
  constructor(status, message, problem) {
    super(message);
    this.status = status;
    this.problem = problem;
  }
}

export async function api(path, { method = 'GET', body } = {}) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined
        ? { Accept: 'application/json', ...authHeaders() }
        : { Accept: 'application/json', 'Content-Type': 'application/json', ...authHeaders() },
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
  } catch (error) {
    connection(false, error.message);
    throw new ApiError(0, `the gateway is unreachable (${error.message})`);
  }
  connection(true);
  if (!response.ok) {
    let problem = null;
    try {
      problem = await response.json();
    } catch {
      // not a ProblemDetails body
    }
    const errors = Array.isArray(problem?.errors)
      ? problem.errors.map((e) => (e.line ? `line ${e.line}:${e.column ?? ''} ${e.message}` : e.message ?? String(e))).join('; ')
      : problem?.errors && typeof problem.errors === 'object'
        ? Object.entries(problem.errors).map(([k, v]) => `${k}: ${[].concat(v).join(', ')}`).join('; ')
        : '';
    const detail = [problem?.title, problem?.detail, errors].filter(Boolean).join(' — ');
    if (response.status === 401) askForKey(problem?.detail);
    throw new ApiError(response.status, `${response.status} ${detail || response.statusText}`, problem);
  }
  return response.status === 204 ? null : response.json();
}

export function connection(ok, message) {
  const element = $('#connection');
  const was = element.classList.contains('ok') ? 'ok' : element.classList.contains('down') ? 'down' : '';
  if (was !== (ok ? 'ok' : 'down')) window.dispatchEvent(new CustomEvent('salsa:connection', { detail: { ok } }));
  element.className = `connection ${ok ? 'ok' : 'down'}`;
  element.textContent = ok ? 'connected' : 'gateway unreachable';
  element.title = ok ? 'the gateway answers' : message ?? '';
}

/**
 * Server-sent events read with fetch, which (unlike EventSource) can send the API key: calls
 * listeners as EventSource would, and 'error' when the stream fails or ends.
 */
export class FetchEventSource {
  constructor(url) {
    this.url = url;
    this.listeners = new Map();
    this.readyState = 0;
    this.abort = new AbortController();
    this.read();
  }

  addEventListener(name, listener) {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
  }

  emit(name, data) {
    for (const listener of this.listeners.get(name) ?? []) listener({ data });
  }

  close() {
    this.readyState = 2;
    this.abort.abort();
  }

  async read() {
    try {
      const response = await fetch(this.url, { headers: { Accept: 'text/event-stream', ...authHeaders() }, cache: 'no-store', signal: this.abort.signal });
      if (response.status === 401) askForKey();
      if (!response.ok || !response.body) throw new Error(`${response.status}`);
      this.readyState = 1;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value.replace(/\r\n?/g, '\n');
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let name = 'message';
          const data = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) name = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
          }
          if (data.length) this.emit(name, data.join('\n'));
        }
      }
    } catch {
      // reported below, as EventSource reports a broken stream
    }
    if (this.readyState === 2) return;
    this.readyState = 2;
    this.emit('error', null);
  }
}


/** A stream of server-sent events: EventSource cannot send credentials, so with a key it is read with fetch. */
export const eventSource = (url) => (apiKey() ? new FetchEventSource(url) : new EventSource(url));
