// submit.js -- a job from an example: edit its JSON, validate it on the
// server (?dry_run=true) with each problem shown beside the member it
// names, submit it; and dataset upload.

import { ApiError, getJSON, request, sendJSON } from './api.js';
import { errorBox, h, replace } from './dom.js';
import { lineOf, memberOffsets } from './jsonpos.js';

const CHECK_DELAY_MS = 400;

export function mount(view) {
  const editor = h('textarea', { id: 'spec-editor', spellcheck: false, rows: 28,
    'aria-label': 'job specification (JSON)' });
  const notes = h('div', { class: 'notes', id: 'spec-notes', 'aria-live': 'polite' });
  const verdict = h('p', { id: 'spec-verdict', class: 'muted' }, 'Pick an example or paste a spec.');
  const examples = h('select', { id: 'example-select' }, h('option', { value: '' }, 'examples…'));
  const submitBtn = h('button', { type: 'button', id: 'submit-job', disabled: true }, 'Submit job');
  const errors = h('div');
  const upload = uploadForm((id) => useDataset(id));
  let list = [];
  let timer = null;
  let seq = 0;

  replace(view, h('h1', 'Submit a job'), errors,
    h('div', { class: 'controls' }, h('label', 'Start from ', examples),
      h('button', { type: 'button', class: 'secondary', onclick: () => check(true) }, 'Validate'), submitBtn),
    h('div', { class: 'editor' }, editor, notes), verdict,
    h('section', h('h2', 'Upload a dataset'), upload));

  examples.addEventListener('change', () => {
    const ex = examples.value === '' ? null : list[Number(examples.value)];
    if (ex) { editor.value = JSON.stringify(ex.spec, null, 2); check(); }
  });
  editor.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(check, CHECK_DELAY_MS); });
  editor.addEventListener('scroll', () => { notes.scrollTop = editor.scrollTop; });
  submitBtn.addEventListener('click', submit);

  // Each problem at the line of the member it names (its parent when the
  // member is missing).
  function annotate(members) {
    const text = editor.value;
    const offsets = memberOffsets(text);
    const lineHeight = parseFloat(getComputedStyle(editor).lineHeight) || 18;
    const pad = parseFloat(getComputedStyle(editor).paddingTop) || 0;
    replace(notes, members.map(([pointer, reason]) => {
      const note = h('div', { class: 'note', dataset: { pointer } }, h('code', pointer || '(body)'), ' ', reason);
      note.style.top = `${pad + (lineOf(text, pointer, offsets) - 1) * lineHeight}px`;
      return note;
    }));
    notes.append(h('div', { class: 'spacer' }));
    notes.lastChild.style.height = `${editor.scrollHeight}px`;
    notes.scrollTop = editor.scrollTop;
  }

  async function check(explicit = false) {
    const mine = ++seq;
    const text = editor.value.trim();
    submitBtn.disabled = true;
    if (!text) return;
    try {
      await request('POST', '/v1/jobs?dry_run=true', { body: text });
      if (mine !== seq) return;
      annotate([]);
      verdict.className = 'ok';
      verdict.textContent = 'Valid: the server accepts this spec.';
      submitBtn.disabled = false;
    } catch (err) {
      if (mine !== seq) return;
      const members = err instanceof ApiError ? err.members : [];
      annotate(members);
      verdict.className = 'error';
      verdict.textContent = members.length ? `${members.length} problem${members.length > 1 ? 's' : ''} in this spec`
        : err.message;
      if (explicit && !members.length) replace(errors, errorBox(err));
    }
  }

  async function submit() {
    try {
      const job = await sendJSON('POST', '/v1/jobs', editor.value);
      location.hash = `#/jobs/${job.id}`;
    } catch (err) { replace(errors, errorBox(err)); }
  }

  // A dataset into the spec: ratings as matrix completion's data; a
  // matrix as A ("id"), a vector as b ("b_id") of the problem's dataset source.
  function useDataset(ds) {
    try {
      const spec = JSON.parse(editor.value || '{}');
      if (ds.kind === 'ratings') {
        spec.problem ??= { type: 'matrix_completion' };
        spec.problem.data = { source: 'dataset', id: ds.id };
      } else {
        spec.problem ??= { type: 'least_squares' };
        if (spec.problem.type === 'matrix_completion') spec.problem = { type: 'least_squares' };
        const data = spec.problem.data?.source === 'dataset' ? spec.problem.data : { source: 'dataset' };
        data[ds.kind === 'vector' ? 'b_id' : 'id'] = ds.id;
        spec.problem.data = data;
      }
      editor.value = JSON.stringify(spec, null, 2);
      check();
    } catch { replace(errors, errorBox(new Error('the editor does not hold valid JSON'))); }
  }

  getJSON('/v1/examples').then((body) => {
    list = body.examples;
    examples.append(...list.map((ex, k) => h('option', { value: k }, `${ex.name} (${ex.size})`)));
  }).catch((err) => replace(errors, errorBox(err)));
  return () => clearTimeout(timer);
}

function uploadForm(onUploaded) {
  const file = h('input', { type: 'file', id: 'dataset-file' });
  const kind = h('select', { id: 'dataset-kind' },
    [['', 'told by the file'], ['ratings', 'ratings'], ['matrix', 'a matrix (A)'], ['vector', 'a vector (b)']]
      .map(([v, t]) => h('option', { value: v }, t)));
  const format = h('select', { id: 'dataset-format' },
    ['auto', 'npy', 'npz', 'libsvm', 'matrix_market', 'csv', 'movielens', 'udata'].map((f) => h('option', { value: f }, f)));
  const out = h('div', { id: 'dataset-result' });
  async function send() {
    const f = file.files[0];
    if (!f) return;
    try {
      const q = `format=${format.value}${kind.value ? `&kind=${kind.value}` : ''}`;
      const resp = await request('POST', `/v1/datasets?${q}`, { body: f, type: 'application/octet-stream' });
      const ds = await resp.json();
      replace(out, h('p', { class: 'ok' }, `Dataset ${ds.id.slice(0, 12)}…: ${ds.kind} ${ds.n_rows} × ${ds.n_cols}, ${ds.nnz} entries (${ds.format}) `,
        h('button', { type: 'button', class: 'secondary', onclick: () => onUploaded(ds) }, 'Use in the spec')));
    } catch (err) { replace(out, errorBox(err)); }
  }
  return h('div', { class: 'controls' }, file, h('label', 'kind ', kind), h('label', 'format ', format),
    h('button', { type: 'button', onclick: send }, 'Upload'), out);
}
