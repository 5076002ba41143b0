// convergence.js -- the job page's plots: the certified inner gap (an
// upper bound of g(x_t) − g*), f(x_t) − f_lower (an upper bound of
// f(x_t) − f*; of z_t too, the bisection methods' answer), f itself beside
// its certified lower bound f_lower (a bisection's rejected levels),
// g(x_t) − g_opt (when a reference exists), the step size and sigma_t,
// against iteration or wall time, on log or linear scales.  Rows
// come from the trace and from the live progress events, merged by
// iteration (an event's row gains the trace's bounds when they arrive).

import { h } from './dom.js';
import { METRICS, X_AXES, createPlot, pointCount, points, render } from './plots.js';

const PANELS = [
  { title: 'certified inner gap', keys: ['inner_gap_x', 'inner_gap_z'] },
  { title: 'certified outer gap', keys: ['outer_gap_x', 'outer_gap_z'] },
  { title: 'f and its certified lower bound', keys: ['f_x', 'f_z', 'f_lower'] },
  { title: METRICS.g_gap_x, keys: ['g_gap_x'], optional: true },
  { title: 'step size α_t and σ_t', keys: ['alpha', 'sigma'] },
];

export function axisControls(opts, onChange) {
  const xSel = h('select', { id: 'x-axis', onchange: (e) => { opts.xKey = e.target.value; onChange(); } },
    Object.entries(X_AXES).map(([k, label]) => h('option', { value: k, selected: k === opts.xKey }, label)));
  const box = (id, key, label) => h('label', h('input', { type: 'checkbox', id, checked: opts[key],
    onchange: (e) => { opts[key] = e.target.checked; onChange(); } }), ` ${label}`);
  return h('div', { class: 'controls' }, h('label', 'x axis ', xSel),
    box('log-x', 'logX', 'log x'), box('log-y', 'logY', 'log y'));
}

export class Convergence {
  constructor() {
    this.rows = [];
    this.byT = new Map();
    this.last = 0; // the last iteration held
    this.lastTrace = 0; // the last iteration the trace gave
    this.opts = { xKey: 't', logX: false, logY: true };
    this.charts = [];
    this.grid = h('div', { class: 'plots' });
    this.el = h('section', { class: 'convergence' }, h('h2', 'Convergence'),
      axisControls(this.opts, () => this.draw()), this.grid);
  }

  async init() {
    for (const p of PANELS) {
      const canvas = h('canvas', { 'aria-label': p.title });
      const box = h('div', { class: 'plot', dataset: { metric: p.keys.join(',') } }, canvas);
      this.grid.append(box);
      const chart = await createPlot(canvas, p.title);
      if (this.destroyed) { chart.destroy(); return; }
      this.charts.push({ panel: p, box, chart });
    }
    this.draw();
  }

  // Rows in iteration order: a new iteration is appended, one already
  // held (a progress event's) takes the members the new row brings.
  add(rows, fromTrace = false) {
    let changed = 0;
    for (const r of rows) {
      const t = r.t ?? r.iteration;
      if (typeof t !== 'number') continue;
      const row = { ...r, t };
      if (typeof row.f_x === 'number' && typeof row.f_lower === 'number')
        row.outer_gap_x = row.f_x - row.f_lower;
      if (typeof row.f_z === 'number' && typeof row.f_lower === 'number')
        row.outer_gap_z = row.f_z - row.f_lower;
      const held = this.byT.get(t);
      if (held) Object.assign(held, row);
      else if (t > this.last) {
        this.rows.push(row);
        this.byT.set(t, row);
        this.last = t;
      } else continue;
      if (fromTrace && t > this.lastTrace) this.lastTrace = t;
      changed++;
    }
    if (changed) this.draw();
  }

  draw() {
    if (this.destroyed) return;
    for (const c of this.charts) {
      const series = c.panel.keys.map((k) => ({ label: METRICS[k],
        points: points(this.rows, k, this.opts.xKey, this.opts) }));
      const empty = series.every((s) => !s.points.length);
      c.box.hidden = Boolean(c.panel.optional && empty);
      c.box.dataset.points = String(series.reduce((n, s) => n + s.points.length, 0));
      render(c.chart, series, { ...this.opts, xLabel: X_AXES[this.opts.xKey] });
    }
    this.el.dataset.points = String(this.charts.reduce((n, c) => n + pointCount(c.chart), 0));
  }

  destroy() {
    this.destroyed = true;
    for (const c of this.charts) c.chart.destroy();
  }
}
