// plots.js -- convergence plots on Chart.js, which ircgd serves from
// Debian's libjs-chart.js at /ui/vendor/chart.js/ (never a copy of ours).

let loading = null;

// The Chart class, registered once; rejects when Chart.js is missing.
export function loadChart() {
  loading ??= import('../vendor/chart.js/chart.mjs').then((m) => {
    m.Chart.register(...m.registerables);
    m.Chart.defaults.animation = false;
    m.Chart.defaults.font.family = 'system-ui, sans-serif';
    return m.Chart;
  });
  return loading;
}

// What a trace row (or a progress event) offers to plot.
export const METRICS = {
  inner_gap_x: 'certified g(x_t) − g*',
  inner_gap_z: 'certified g(z_t) − g*',
  outer_gap_x: 'f(x_t) − f_lower (≥ f(x_t) − f*)',
  outer_gap_z: 'f(z_t) − f_lower (≥ f(z_t) − f*)',
  g_x: 'g(x_t)',
  f_x: 'f(x_t)',
  f_z: 'f(z_t)',
  f_lower: 'f_lower (≤ f*, certified)',
  g_gap_x: 'g(x_t) − g_opt',
  gap: 'gap of the method',
  alpha: 'step size α_t',
  sigma: 'σ_t',
};

export const X_AXES = { t: 'iteration', elapsed: 'wall time (s)' };

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2',
  '#17becf', '#7f7f7f', '#bcbd22'];

// {x, y} points of rows for one metric; on a log axis, values <= 0 have
// no place and are left out.
export function points(rows, key, xKey, { logX, logY }) {
  const out = [];
  for (const r of rows) {
    const x = r[xKey];
    const y = r[key];
    if (typeof x !== 'number' || typeof y !== 'number' || !Number.isFinite(y)) continue;
    if ((logX && x <= 0) || (logY && y <= 0)) continue;
    out.push({ x, y });
  }
  return out;
}

export async function createPlot(canvas, title) {
  const Chart = await loadChart();
  return new Chart(canvas, {
    type: 'line',
    data: { datasets: [] },
    options: {
      parsing: false,
      normalized: true,
      responsive: true,
      maintainAspectRatio: false,
      interaction: { mode: 'nearest', intersect: false },
      elements: { point: { radius: 0 }, line: { borderWidth: 1.5 } },
      plugins: { title: { display: true, text: title }, legend: { display: true } },
      scales: { x: { type: 'linear' }, y: { type: 'logarithmic' } },
    },
  });
}

// Log axes label 1, 2 and 5 times the powers of ten (1e-6, 2e-6, 0.05,
// 3000): enough for an axis within one decade, readable over many.
function logTick(v) {
  const e = Math.floor(Math.log10(v) + 1e-9);
  const m = Math.round(v / 10 ** e);
  if (![1, 2, 5].includes(m) || Math.abs(v / 10 ** e - m) > 1e-6) return '';
  return Math.abs(e) >= 4 ? `${m}e${e}` : String(Number((m * 10 ** e).toPrecision(1)));
}

function axis(log, title) {
  const a = { type: log ? 'logarithmic' : 'linear' };
  if (log) a.ticks = { callback: logTick, autoSkip: true };
  if (title) a.title = { display: true, text: title };
  return a;
}

// series: [{label, points}]; opts: {logX, logY, xLabel}.
export function render(chart, series, { logX, logY, xLabel }) {
  chart.data.datasets = series.map((s, i) => ({
    label: s.label,
    data: s.points,
    borderColor: COLORS[i % COLORS.length],
    backgroundColor: COLORS[i % COLORS.length],
  }));
  chart.options.scales.x = axis(logX, xLabel);
  chart.options.scales.y = axis(logY);
  chart.update('none');
}

// Total points drawn (the browser test watches this grow).
export function pointCount(chart) {
  return chart.data.datasets.reduce((n, d) => n + d.data.length, 0);
}
