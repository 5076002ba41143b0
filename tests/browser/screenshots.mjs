// screenshots.mjs BASE_URL OUT_DIR -- pictures of the dashboard for the
// docs: IR-CG's three step rules and CG-BiO on one synthetic instance,
// the job list, a job's page while it runs, the comparison, and the
// submit form showing a spec's problems beside their members.  Run by
// `make screenshots` against a fresh daemon.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, findChromium } from './cdp.mjs';

const [base, out] = process.argv.slice(2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function api(method, path, body) {
  const resp = await fetch(`${base}${path}`, { method, headers: { 'Content-Type': 'application/json' },
    body: body && JSON.stringify(body) });
  if (!resp.ok) throw new Error(`${method} ${path}: ${resp.status} ${await resp.text()}`);
  return resp.json();
}

async function submitAll() {
  const { examples } = await api('GET', '/v1/examples');
  const ex = examples.find((e) => e.name === 'synthetic-movielens' && e.size === 'small');
  // 300 x 200 with 6000 ratings: big enough to take a few seconds
  const data = { ...ex.spec.problem.data, n_rows: 300, n_cols: 200, n_ratings: 6000, rank: 5 };
  const spec = (alg, maxIter = 3000, every = 1, seconds = 60) => ({ ...ex.spec,
    problem: { ...ex.spec.problem, data }, algorithm: { ...alg, max_iter: maxIter, time_limit: seconds },
    output: { trace_every: every }, reference: { compute: true } });
  const base_ = ex.spec.algorithm;
  const ids = [];
  for (const rule of ['open_loop', 'closed_loop', 'line_search']) {
    ids.push((await api('POST', '/v1/jobs', spec({ ...base_, step_rule: rule }))).id);
  }
  ids.push((await api('POST', '/v1/jobs', spec({ name: 'cgbio', start: 'default' }))).id);
  const lastRun = (await api('POST', '/v1/jobs', spec(base_, 100000000, 10, 40))).id;
  const cancelled = (await api('POST', '/v1/jobs', spec({ ...base_ }))).id;
  await api('POST', `/v1/jobs/${cancelled}/cancel`);
  return { ids, lastRun };
}

async function waitDone(ids) {
  for (const id of ids) {
    for (;;) {
      const j = await api('GET', `/v1/jobs/${id}`);
      if (['succeeded', 'failed', 'cancelled'].includes(j.state)) break;
      await sleep(250);
    }
  }
}

const exe = findChromium();
if (!exe) { console.log('no chromium: make deps installs it'); process.exit(1); }
const { ids, lastRun } = await submitAll();
await waitDone(ids);
const b = await Browser.launch(exe, { width: 1360, height: 900 });
const shot = async (name) => { writeFileSync(join(out, name), await b.screenshot()); console.log(`  ${join(out, name)}`); };
try {
  await b.goto(`${base}/ui/#/jobs`);
  await b.waitFor('document.querySelectorAll("table.jobs tbody tr[data-id]").length >= 6');
  await shot('dashboard-jobs.png');

  await b.goto(`${base}/ui/#/jobs/${lastRun}`);
  await b.waitFor('Number(document.querySelector(".convergence").dataset.points) > 50', 30000);
  await sleep(1500);
  await shot('dashboard-job.png');

  await b.goto(`${base}/ui/#/compare?ids=${ids.join(',')}&metric=g_gap_x`);
  await b.waitFor(`document.querySelector("#compare-plot").dataset.series === "${ids.length}"`, 30000);
  await sleep(500);
  await shot('dashboard-compare.png');

  await b.goto(`${base}/ui/#/submit`);
  await b.waitFor('document.querySelectorAll("#example-select option").length > 1');
  const k = await b.eval(`[...document.querySelectorAll('#example-select option')]
    .findIndex((o) => o.textContent === 'least-norm (full)') - 1`);
  await b.select('#example-select', String(Math.max(k, 0)));
  await b.waitFor('document.querySelector("#spec-verdict").textContent.startsWith("Valid")');
  const spec = JSON.parse(await b.eval('document.querySelector("#spec-editor").value'));
  spec.problem.domain.radius = -1;
  spec.algorithm.step_rule = 'closest';
  delete spec.problem.data;
  await b.type('#spec-editor', JSON.stringify(spec, null, 2));
  await b.waitFor('document.querySelectorAll("#spec-notes .note").length >= 2');
  await shot('dashboard-submit.png');
} finally {
  await b.close();
}
