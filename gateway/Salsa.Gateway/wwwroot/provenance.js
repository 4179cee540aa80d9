// How a run was made and whether it was made again the same: the release, the RDKit release, the
// workflow text, each output's and file's SHA-256 — and, for a reproduction, each beside the
// recorded one with the verdict (GET /api/runs/{id}: provenance, steps[].digests,
// artifacts[].sha256, reproduction).

import { codeLines, h, replace } from './dom.js';
import { authHeaders, runUrl } from './api.js';

const short = (digest) => (digest ? `${digest.slice(0, 16)}…` : '–');

/** The run's outputs and files with their digests, in the workflow's order. */
function digests(run) {
  const rows = [];
  for (const step of run.steps ?? []) {
    for (const [name, sha256] of Object.entries(step.digests ?? {})) rows.push({ step: step.id, name, file: false, recorded: sha256 });
    for (const artifact of (run.artifacts ?? []).filter((a) => a.step === step.id)) rows.push({ step: step.id, name: artifact.name, file: true, recorded: artifact.sha256 });
  }
  return rows;
}

function verdict(reproduction) {
  const of = h('a', { href: `#/runs/${reproduction.of}` }, reproduction.of.slice(0, 8));
  if (reproduction.identical === true) {
    return h('p', { class: 'verdict verdict-identical', role: 'status' }, '✓ Reproduced: all ', String(reproduction.outputs.length), ' outputs and files are identical to run ', of, '.');
  }
  if (reproduction.identical === false) {
    const differing = reproduction.outputs.filter((o) => !o.identical).length;
    return h('p', { class: 'verdict verdict-differs', role: 'status' }, '✗ Not identical to run ', of, `: ${differing} of ${reproduction.outputs.length} differ`,
      reproduction.firstDifference ? [', first at step ', h('strong', {}, reproduction.firstDifference)] : null, '.');
  }
  return h('p', { class: 'verdict muted', role: 'status' }, 'Reproducing run ', of, '…');
}

export function renderProvenance(current) {
  const run = current.run;
  const provenance = run?.provenance;
  const reproduction = run?.reproduction;
  const signature = JSON.stringify([run?.state, reproduction?.identical, reproduction?.outputs?.map((o) => o.reproduced), run?.artifacts?.length, run?.steps?.map((s) => s.digests)]);
  if (current.signatures.provenance === signature) return;
  current.signatures.provenance = signature;
  current.el.provenanceCard.hidden = !provenance;
  if (!provenance) return;

  const rows = reproduction
    ? reproduction.outputs
    : digests(run);
  const table = rows.length
    ? h('div', { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': reproduction ? 'The outputs compared' : 'The outputs\' digests' }, h('table', { class: 'digests' },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, 'step'), h('th', { scope: 'col' }, 'output'),
        h('th', { scope: 'col' }, reproduction ? 'recorded SHA-256' : 'SHA-256'),
        reproduction ? [h('th', { scope: 'col' }, 'reproduced'), h('th', { scope: 'col' }, '')] : null)),
      h('tbody', {}, rows.map((row) => h('tr', { class: reproduction && row.reproduced && !row.identical ? 'differs' : '' },
        h('td', {}, row.step),
        h('td', {}, row.file ? `file ${row.name}` : row.name),
        h('td', { class: 'mono', title: row.recorded ?? '' }, short(row.recorded)),
        reproduction
          ? [h('td', { class: 'mono', title: row.reproduced ?? '' }, short(row.reproduced)),
            h('td', {}, row.identical ? 'identical' : row.reproduced ? 'differs' : '…')]
          : null)))))
    : h('p', { class: 'muted' }, 'No outputs yet.');
  const field = (label, value) => h('div', { class: 'field' }, h('dt', {}, label), h('dd', { class: 'mono' }, value));
  replace(current.el.provenance,
    reproduction ? verdict(reproduction) : null,
    h('dl', { class: 'meta' },
      field('platform', provenance.platform),
      field('RDKit', provenance.rdkit || 'none (no molecules)'),
      reproduction?.recordedPlatform && reproduction.recordedPlatform !== provenance.platform ? field('recorded by', reproduction.recordedPlatform) : null,
      reproduction?.pinned?.length ? field('pinned to recorded values', reproduction.pinned.join(', ')) : null),
    table,
    h('details', { class: 'workflow-text' }, h('summary', {}, 'Workflow text it ran'), codeLines(provenance.workflow, 'The workflow text it ran')),
    effectiveWorkflow(current.run.id));
}

/** The run's workflow as it ran — every step's parameters as it ran with them — read when first opened (GET /api/runs/{id}/workflow). */
function effectiveWorkflow(runId) {
  const details = h('details', { class: 'workflow-text' }, h('summary', {}, 'As it ran: every parameter applied'));
  details.addEventListener('toggle', async () => {
    if (!details.open || details.querySelector('pre, .error')) return;
    try {
      const response = await fetch(`${runUrl(runId)}/workflow`, { headers: authHeaders(), cache: 'no-store' });
      if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
      details.append(codeLines(await response.text(), 'The workflow as it ran'), h('p', { class: 'muted small' }, 'A workflow file: started as it is, it runs the same steps with the same parameters.'));
    } catch (error) {
      details.append(h('p', { class: 'error' }, `Workflow: ${error.message}`));
    }
  });
  return details;
}
