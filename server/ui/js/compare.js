// compare.js -- several jobs' traces overlaid on one plot (e.g. IR-CG's
// three step rules against CG-BiO on the same instance).

import { getJSON } from './api.js';
import { axisControls } from './convergence.js';
import { errorBox, h, replace, stateBadge } from './dom.js';
import { METRICS, X_AXES, createPlot, pointCount, points, render } from './plots.js';
import { traceRows } from './trace.js';

const REFRESH_MS = 2000;

function label(job, spec) {
  const a = spec?.algorithm || {};
  const dir = a.direction && a.direction !== 'frank_wolfe' ? a.direction : null; // IR-CG's away or pairwise
  return [a.name || job.algorithm, a.step_rule, dir, `(${job.id.slice(-6)})`].filter(Boolean).join(' ');
}

export function mount(view, params) {
  const ids = new Set((params.get('ids') || '').split(',').filter(Boolean));
  const opts = { xKey: 't', logX: false, logY: true, metric: params.get('metric') || 'g_x' };
  const traces = new Map(); // id -> {job, spec, rows}
  const errors = h('div');
  const picker = h('ul', { class: 'picker', id: 'compare-picker' });
  const canvas = h('canvas', { 'aria-label': 'comparison' });
  const plotBox = h('div', { class: 'plot wide', id: 'compare-plot' }, canvas);
  const metric = h('select', { id: 'compare-metric', onchange: (e) => { opts.metric = e.target.value; draw(); } },
    Object.entries(METRICS).map(([k, v]) => h('option', { value: k, selected: k === opts.metric }, v)));
  let chart = null;
  let timer = null;
  let stopped = false;

  replace(view, h('h1', 'Compare'), errors,
    h('div', { class: 'compare' },
      h('section', h('h2', 'Jobs'), h('p', { class: 'muted' }, 'Pick the jobs to overlay.'), picker),
      h('section', { class: 'grow' }, h('div', { class: 'controls' }, h('label', 'metric ', metric),
        axisControls(opts, () => draw())), plotBox)));

  function draw() {
    if (!chart) return;
    const series = [...ids].filter((id) => traces.has(id)).map((id) => {
      const t = traces.get(id);
      return { label: label(t.job, t.spec), points: points(t.rows, opts.metric, opts.xKey, opts) };
    });
    render(chart, series, { ...opts, xLabel: X_AXES[opts.xKey] });
    plotBox.dataset.points = String(pointCount(chart));
    plotBox.dataset.series = String(series.length);
  }

  async function load(id) {
    const t = traces.get(id) || { rows: [], spec: null };
    t.job = await getJSON(`/v1/jobs/${encodeURIComponent(id)}`);
    t.spec ??= await getJSON(`/v1/jobs/${encodeURIComponent(id)}/spec`).catch(() => null);
    const last = t.rows.length ? t.rows[t.rows.length - 1].t : 0;
    t.rows.push(...await traceRows(id, last));
    traces.set(id, t);
  }

  async function refresh() {
    try {
      const running = [...ids].filter((id) => !traces.has(id) ||
        !['succeeded', 'failed', 'cancelled'].includes(traces.get(id).job.state));
      await Promise.all(running.map(load));
      if (!stopped) { draw(); replace(errors); }
    } catch (err) { if (!stopped) replace(errors, errorBox(err)); }
  }

  async function fillPicker() {
    const { jobs } = await getJSON('/v1/jobs?page_size=50');
    for (const id of ids) if (!jobs.some((j) => j.id === id)) jobs.unshift({ id, state: '?', algorithm: '' });
    replace(picker, jobs.map((j) => h('li', h('label',
      h('input', { type: 'checkbox', checked: ids.has(j.id), value: j.id, onchange: (e) => {
        if (e.target.checked) ids.add(j.id); else ids.delete(j.id);
        history.replaceState(null, '', `#/compare?ids=${[...ids].join(',')}`);
        refresh();
      } }), ' ', h('span', { class: 'mono' }, j.id.slice(-8)), ' ', j.algorithm || '', ' ',
      j.problem_type || '', ' ', stateBadge(j.state)))));
  }

  async function tick() {
    if (!document.hidden) await refresh();
    if (!stopped) timer = setTimeout(tick, REFRESH_MS);
  }

  (async () => {
    try {
      const c = await createPlot(canvas, 'comparison');
      if (stopped) { c.destroy(); return; }
      chart = c;
      await fillPicker();
      tick();
    } catch (err) { replace(errors, errorBox(err)); }
  })();
  return () => { stopped = true; clearTimeout(timer); chart?.destroy(); chart = null; };
}
