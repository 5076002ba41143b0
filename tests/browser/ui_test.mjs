// ui_test.mjs BASE_URL -- the dashboard in a real browser (headless
// chromium): open /ui, submit a job through the form and watch its plot
// gain points while it runs, submit a second one and cancel it from its
// page, overlay both on the compare page; a job on uploaded datasets links
// to them and offers its iterates as .npz.  Any console error, exception,
// failed request or 4xx/5xx answer fails the test.  Exit 0 on success,
// 1 on failure, 77 when no browser is installed (a skip).

import { runTest } from './cdp.mjs';

const base = process.argv[2];

const step = (s) => console.log(`  ${s}`);

// Picks the small synthetic matrix completion example and gives it more
// iterations and a time limit, as a user would in the editor.
async function submitFromForm(b, seconds) {
  await b.goto(`${base}/ui/#/submit`);
  await b.waitFor('document.querySelectorAll("#example-select option").length > 1', 15000, 'the examples');
  const k = await b.eval(`[...document.querySelectorAll('#example-select option')]
    .findIndex((o) => o.textContent === 'synthetic-movielens (small)') - 1`);
  if (k < 0) throw new Error('no synthetic-movielens (small) example');
  await b.select('#example-select', String(k));
  await b.waitFor('document.querySelector("#spec-editor").value.includes("synthetic")');
  const spec = JSON.parse(await b.eval('document.querySelector("#spec-editor").value'));
  spec.algorithm.max_iter = 100000000;
  spec.algorithm.time_limit = seconds;
  spec.problem.data.n_ratings = 1500;
  spec.output = { ...spec.output, trace_every: 20 };
  await b.type('#spec-editor', JSON.stringify(spec, null, 2));
  await b.waitFor('document.querySelector("#spec-verdict").textContent.startsWith("Valid")', 15000, 'the dry run');
  await b.click('#submit-job');
  const id = await b.waitFor('(location.hash.match(/^#\\/jobs\\/(j_\\w+)/) || [])[1]', 15000, 'the job page');
  step(`submitted ${id} through the form`);
  return id;
}

async function main(b) {
  await b.goto(`${base}/ui/`);
  await b.waitFor('document.querySelector("table.jobs tbody") && document.querySelector("#jobs-status").textContent.includes("Page 1")', 15000, 'the job list');
  step('the job list loaded');

  const first = await submitFromForm(b, 8);
  await b.waitFor('document.querySelector(".job-head").dataset.state === "running"', 20000, 'running');
  const n0 = Number(await b.waitFor('Number(document.querySelector(".convergence").dataset.points) > 0 && document.querySelector(".convergence").dataset.points', 20000, 'the first points'));
  const n1 = Number(await b.waitFor(`Number(document.querySelector(".convergence").dataset.points) > ${n0} && document.querySelector(".job-head").dataset.state === "running" && document.querySelector(".convergence").dataset.points`, 20000, 'more points while running'));
  step(`the plot went from ${n0} to ${n1} points while the job ran`);
  await b.waitFor('Number(document.querySelector(\'.plot[data-metric="inner_gap_x,inner_gap_z"]\')?.dataset.points) > 0', 20000, 'the certified inner gap plotted');
  step('the certified inner gap is plotted');
  await b.waitFor('Number(document.querySelector(\'.plot[data-metric="f_x,f_z,f_lower"]\')?.dataset.points) > 0', 20000, 'f and f_lower plotted');
  step('f is plotted beside its certified lower bound f_lower');

  // a job stopped long before its inner problem is solved: its page says so
  const warned = await b.eval(`fetch('/v1/jobs', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({problem: {type: 'least_squares', data: {source: 'synthetic', m: 30, n: 80, seed: 1}, domain: {type: 'l2_ball', radius: 10}}, algorithm: {max_iter: 3}})}).then((r) => r.json()).then((j) => j.id)`);
  await b.goto(`${base}/ui/#/jobs/${warned}`);
  await b.waitFor('document.querySelector("#job-warnings")?.textContent.includes("inner_unsolved")', 20000, 'the warning badge');
  step(`${warned} ended with its inner problem unsolved: the badge says so`);

  const second = await submitFromForm(b, 60);
  // running: no state change will redraw the button under the click
  await b.waitFor('document.querySelector(".job-head").dataset.state === "running"', 20000, 'the second job running');
  await b.click('#cancel-job');
  await b.waitFor('document.querySelector(".job-head").dataset.state === "cancelled"', 20000, 'cancelled')
    .catch(async (err) => {
      const seen = await b.eval(`fetch('/v1/jobs/${second}').then((r) => r.json()).then((j) => [j.state, j.cancel_requested, document.querySelector('.job-head').dataset.state, document.querySelector('#cancel-job')?.disabled])`);
      throw new Error(`${err.message} (server state, cancel_requested, page state, button disabled: ${JSON.stringify(seen)})`);
    });
  step(`cancelled ${second}; its page says so`);

  await b.goto(`${base}/ui/#/jobs`);
  await b.waitFor(`document.querySelector('tr[data-id="${second}"]')?.dataset.state === 'cancelled'`, 15000, 'the list row');
  await b.waitFor(`document.querySelector('tr[data-id="${first}"]')`, 15000, 'the first job in the list');
  step('both jobs are in the list');

  await b.goto(`${base}/ui/#/compare?ids=${first},${second}`);
  await b.waitFor('document.querySelector("#compare-plot").dataset.series === "2" && Number(document.querySelector("#compare-plot").dataset.points) > 0', 20000, 'the comparison');
  step('the compare page overlays both');

  // least squares on two uploaded datasets: its page says what each holds
  const onData = await b.eval(`(async () => {
    const up = (kind, text) => fetch('/v1/datasets?kind=' + kind, {method: 'POST', body: text}).then((r) => r.json());
    const A = await up('matrix', '1,2\\n3,4\\n5,6.5\\n'), bv = await up('vector', '1\\n-2\\n0.25\\n');
    const spec = {problem: {type: 'least_squares', data: {source: 'dataset', id: A.id, b_id: bv.id}}, algorithm: {max_iter: 20}};
    return fetch('/v1/jobs', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(spec)}).then((r) => r.json()).then((j) => j.id);
  })()`);
  await b.goto(`${base}/ui/#/jobs/${onData}`);
  await b.waitFor('[...document.querySelectorAll("#job-data li")].map((li) => li.textContent).join("|").match(/^A: dataset \\w+…\\s*matrix 3 × 2.*\\|b: dataset \\w+…\\s*vector 3 × 1/)', 20000, 'the datasets of the job');
  await b.waitFor('document.querySelector("#download-x") && document.querySelector("#download-z")', 20000, 'the iterates');
  step(`${onData} links its datasets and offers x and z as .npz`);
}

await runTest(main);
