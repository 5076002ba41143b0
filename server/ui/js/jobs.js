// jobs.js -- the job list: filters by state, pages, live refresh, and a
// selection to compare.

import { nextLink, request } from './api.js';
import { age, errorBox, h, num, replace, stateBadge } from './dom.js';

const STATES = ['', 'queued', 'running', 'succeeded', 'failed', 'cancelled'];
const PAGE_SIZE = 20;
const REFRESH_MS = 2000;

// The URL of the next page: the Link header (rel="next") when the server
// sends one, else the page token of the body.
function nextPage(resp, body, state) {
  const link = nextLink(resp);
  if (link) return link;
  if (!body.next_page_token) return null;
  const q = new URLSearchParams({ page_size: PAGE_SIZE, page_token: body.next_page_token });
  if (state) q.set('state', state);
  return `/v1/jobs?${q}`;
}

function firstPage(state) {
  const q = new URLSearchParams({ page_size: PAGE_SIZE });
  if (state) q.set('state', state);
  return `/v1/jobs?${q}`;
}

function progressCell(j) {
  const p = j.progress || {};
  const max = p.max_iter;
  const bar = max ? h('progress', { max, value: Math.min(p.iteration, max) }) : null;
  return h('td', { class: 'progress' }, bar, ` ${p.iteration ?? 0}${max ? ` / ${max}` : ''}`);
}

function row(j, selected, onToggle) {
  return h('tr', { dataset: { id: j.id, state: j.state } },
    h('td', h('input', { type: 'checkbox', checked: selected.has(j.id), 'aria-label': `select ${j.id}`,
      onchange: (e) => onToggle(j.id, e.target.checked) })),
    h('td', h('a', { href: `#/jobs/${j.id}`, class: 'mono' }, j.id)),
    h('td', stateBadge(j.state)),
    h('td', j.problem_type),
    h('td', j.algorithm || '–'),
    progressCell(j),
    h('td', { class: 'num' }, num(j.progress?.g_x)),
    h('td', { title: j.created_at }, age(j.created_at)));
}

export function mount(view, params) {
  const state = params.get('state') || '';
  const selected = new Set();
  const pages = [firstPage(state)]; // pages[i]: URL of page i
  let index = 0;
  let next = null;
  let timer = null;
  let stopped = false;

  const filters = h('div', { class: 'filters', role: 'group', 'aria-label': 'state filter' },
    STATES.map((s) => h('a', { href: s ? `#/jobs?state=${s}` : '#/jobs',
      class: s === state ? 'chip active' : 'chip', dataset: { state: s || 'all' } }, s || 'all')));
  const tbody = h('tbody');
  const status = h('p', { class: 'muted', id: 'jobs-status' });
  const prev = h('button', { type: 'button', class: 'secondary', onclick: () => go(-1) }, '← Newer');
  const more = h('button', { type: 'button', class: 'secondary', onclick: () => go(1) }, 'Older →');
  const compareBtn = h('button', { type: 'button', disabled: true,
    onclick: () => { location.hash = `#/compare?ids=${[...selected].join(',')}`; } }, 'Compare selected');
  const errors = h('div');

  replace(view, h('h1', 'Jobs'), filters, errors,
    h('table', { class: 'jobs' },
      h('thead', h('tr', ['', 'id', 'state', 'problem', 'algorithm', 'progress', 'g(x)', 'age']
        .map((t) => h('th', t)))), tbody),
    h('div', { class: 'pager' }, prev, more, compareBtn), status);

  function toggle(id, on) {
    if (on) selected.add(id); else selected.delete(id);
    compareBtn.disabled = selected.size < 1;
  }

  async function load() {
    try {
      const resp = await request('GET', pages[index]);
      const body = await resp.json();
      if (stopped) return;
      next = nextPage(resp, body, state);
      replace(tbody, body.jobs.map((j) => row(j, selected, toggle)));
      replace(errors);
      if (!body.jobs.length) replace(tbody, h('tr', h('td', { colspan: 8, class: 'muted' }, 'No jobs.')));
      prev.disabled = index === 0;
      more.disabled = !next;
      status.textContent = `Page ${index + 1} · updated ${new Date().toLocaleTimeString()}`;
    } catch (err) {
      if (!stopped) replace(errors, errorBox(err));
    }
  }

  function go(step) {
    if (step > 0 && next) pages[index + 1] = next;
    index = Math.max(0, index + step);
    load();
  }

  async function tick() {
    if (!document.hidden) await load();
    if (!stopped) timer = setTimeout(tick, REFRESH_MS);
  }
  tick();
  return () => { stopped = true; clearTimeout(timer); };
}
