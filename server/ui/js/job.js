// job.js -- one job: live convergence plots fed by its event stream, its
// spec (and the datasets it names), result (x and z as .npz) and
// snapshots, downloads, cancel and delete.

import { ApiError, getJSON, request, sendJSON } from './api.js';
import { Convergence } from './convergence.js';
import { age, download, duration, errorBox, h, num, replace, stateBadge } from './dom.js';
import { followEvents } from './sse.js';
import { traceCSV, traceRows } from './trace.js';

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);
const SHOW_MAX = 200000; // characters of spec or result shown inline

function facts(j) {
  const p = j.progress || {};
  const r = j.result || {};
  const rows = [
    ['state', stateBadge(j.state)], ['problem', j.problem_type], ['algorithm', j.algorithm || '–'],
    ['iteration', `${p.iteration ?? 0}${p.max_iter ? ` of at most ${p.max_iter}` : ''}`],
    ['elapsed', duration(p.elapsed)], ['g(x)', num(p.g_x)], ['f(x)', num(p.f_x)], ['gap', num(p.gap)],
    ['created', `${j.created_at} (${age(j.created_at)} ago)`], ['finished', j.finished_at || '–'],
  ];
  if (r.status) rows.push(['outcome', r.status], ['g_opt', num(r.g_opt)]);
  const c = r.certificate;
  if (c) { // of the method's answer: x, or the bisection methods' z
    const z = c.answer === 'z';
    rows.push(['certified (iteration ' + c.iteration + ')',
      `g(${z ? 'z' : 'x'}) − g* ≤ ${num(z ? c.inner_gap_z : c.inner_gap_x)}, ` +
      `f(${z ? 'z' : 'x'}) − f* ≤ ${num(z ? c.outer_gap_z : c.outer_gap_x)}, f* ≥ ${num(c.f_lower)}`]);
  }
  if (r.choice) rows.push(['chosen by auto', `${r.choice.name}: ${r.choice.why}`]);
  if (j.error) rows.push(['error', `${j.error.title}: ${j.error.detail || ''}`]);
  return h('dl', { class: 'facts', id: 'job-facts' }, rows.map(([k, v]) => [h('dt', k), h('dd', v)]));
}

// A result that is not what it seems says so at the top of its page.
function warnings(j) {
  const w = j.warnings || [];
  if (!w.length) return '';
  return h('div', { class: 'warnings', id: 'job-warnings', role: 'alert' },
    w.map((x) => h('p', h('span', { class: 'badge warn' }, x.code), ' ', x.message)));
}

function pretty(text) {
  if (text.length > SHOW_MAX) return `${text.slice(0, SHOW_MAX)}\n… (${text.length} characters: download it)`;
  try { return JSON.stringify(JSON.parse(text), null, 2); } catch { return text; }
}

async function blobOf(path) {
  return (await request('GET', path)).blob();
}

export function mount(view, params) {
  const id = params.get('id');
  const base = `/v1/jobs/${encodeURIComponent(id)}`;
  const conv = new Convergence();
  const head = h('div', { class: 'job-head' });
  const errors = h('div');
  const specPre = h('pre', { class: 'json', id: 'job-spec' }, '…');
  const resultPre = h('pre', { class: 'json', id: 'job-result' }, 'available once the job has finished');
  const snaps = h('ul', { id: 'job-snapshots' });
  const data = h('ul', { id: 'job-data' });
  const iterates = h('div', { id: 'job-iterates', class: 'buttons' });
  let job = null;
  let stop = null;
  let stopped = false;
  let tail = 0;

  replace(view, head, errors, conv.el,
    h('div', { class: 'columns' },
      h('section', h('h2', 'Spec'), data, specPre),
      h('section', h('h2', 'Result'), iterates, resultPre, h('h2', 'Snapshots'), snaps)));

  const fail = (err) => { if (!stopped) replace(errors, errorBox(err)); };

  function buttons() {
    const terminal = TERMINAL.has(job.state);
    return h('div', { class: 'buttons' },
      h('button', { type: 'button', id: 'cancel-job', disabled: terminal, onclick: cancel }, 'Cancel'),
      h('button', { type: 'button', id: 'delete-job', class: 'danger', disabled: !terminal, onclick: remove }, 'Delete'),
      h('button', { type: 'button', class: 'secondary', id: 'download-csv',
        onclick: () => traceCSV(id).then((t) => download(`${id}-trace.csv`, t, 'text/csv')).catch(fail) }, 'Trace (CSV)'),
      h('button', { type: 'button', class: 'secondary',
        onclick: () => traceRows(id).then((r) => download(`${id}-trace.json`, JSON.stringify(r), 'application/json')).catch(fail) }, 'Trace (JSON)'),
      h('a', { href: `#/compare?ids=${id}`, class: 'button secondary' }, 'Compare…'));
  }

  function showJob(j) {
    job = j;
    replace(head, h('h1', 'Job ', h('span', { class: 'mono' }, j.id), ' ', stateBadge(j.state)),
      warnings(j), buttons(), facts(j));
    head.dataset.state = j.state;
  }

  async function refresh() {
    try { showJob(await getJSON(base)); } catch (err) { fail(err); }
  }

  async function cancel() {
    try { showJob(await sendJSON('POST', `${base}/cancel`)); } catch (err) { fail(err); }
  }

  async function remove() {
    if (!window.confirm(`Delete job ${id}, its trace and snapshots?`)) return;
    try { await request('DELETE', base); location.hash = '#/jobs'; } catch (err) { fail(err); }
  }

  // The trace's rows after the last it gave: the certified bounds of the
  // iterations the progress events already showed.
  async function traceTail() {
    conv.add(await traceRows(id, conv.lastTrace).catch(() => []), true);
  }

  async function finished() {
    clearInterval(tail);
    await refresh();
    await traceTail();
    try {
      const text = await (await request('GET', `${base}/result`)).text();
      replace(resultPre, pretty(text), ' ');
      if (/"x":\{/.test(text)) showIterates();
      resultPre.append(h('button', { type: 'button', class: 'secondary',
        onclick: () => download(`${id}-result.json`, text, 'application/json') }, 'Download'));
    } catch (err) { if (!(err instanceof ApiError && err.status === 409)) fail(err); }
    loadSnapshots();
  }

  // The datasets the spec names, each with what it holds and a link.
  function showData(spec) {
    const d = spec?.problem?.data;
    if (d?.source !== 'dataset') return;
    const roles = [['id', spec.problem.type === 'matrix_completion' ? 'ratings' : 'A'], ['b_id', 'b'],
      ['A_val_id', 'A_val'], ['b_val_id', 'b_val']];
    replace(data, ...roles.filter(([m]) => d[m]).map(([m, role]) => {
      const li = h('li', { dataset: { dataset: d[m] } }, `${role}: `,
        h('a', { href: `/v1/datasets/${d[m]}`, class: 'mono' }, `dataset ${d[m].slice(0, 12)}…`), ' ');
      getJSON(`/v1/datasets/${d[m]}`).then((ds) => li.append(
        `${ds.kind} ${ds.n_rows} × ${ds.n_cols}, ${ds.nnz} entries (${ds.format}), ${ds.bytes} bytes`)).catch(fail);
      return li;
    }));
  }

  // x and z as NumPy .npz (GET .../result?x=npz), once the job has a result.
  function showIterates() {
    replace(iterates, ...['x', 'z'].map((w) => h('button', { type: 'button', class: 'secondary', id: `download-${w}`,
      onclick: () => blobOf(`${base}/result?${w}=npz`).then((b) => download(`${id}-${w}.npz`, b)).catch(fail) },
    `${w} (.npz)`)));
  }

  async function loadSnapshots() {
    try {
      const { snapshots } = await getJSON(`${base}/snapshots`);
      replace(snaps, snapshots.length ? snapshots.map((s) => h('li',
        h('button', { type: 'button', class: 'link', onclick: () => blobOf(s.href)
          .then((b) => download(`${id}-${s.iteration}-${s.kind}.bin`, b)).catch(fail) },
        `iteration ${s.iteration} · ${s.kind} · ${s.bytes} bytes`))) : h('li', { class: 'muted' }, 'none'));
    } catch (err) { fail(err); }
  }

  function onEvent(ev) {
    if (stopped) return;
    if (ev.type === 'progress') conv.add([ev.data]);
    // the stream replays the job's history first: only a newer version
    // of the job is worth fetching
    else if (ev.type === 'state' && job && (ev.data?.version ?? 0) > job.version) refresh();
  }

  (async () => {
    try {
      showJob(await getJSON(base));
      getJSON(`${base}/spec`).then((s) => { replace(specPre, pretty(JSON.stringify(s))); showData(s); }).catch(fail);
      await conv.init().catch(() => replace(conv.el, h('p', { class: 'error' },
        'Charts unavailable: Chart.js was not found (install Debian\'s libjs-chart.js).')));
      conv.add(await traceRows(id), true);
      if (stopped) return;
      if (TERMINAL.has(job.state)) { finished(); return; }
      loadSnapshots();
      tail = setInterval(() => { if (!stopped) traceTail(); }, 3000);
      stop = followEvents(id, onEvent, { onEnd: finished, onError: fail });
    } catch (err) { fail(err); }
  })();

  return () => { stopped = true; clearInterval(tail); stop?.(); conv.destroy(); };
}
