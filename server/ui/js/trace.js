// trace.js -- a job's whole trace, page after page: each page names the
// next in its Link header (rel="next"), so this works the same whatever
// page size the server picks.

import { nextLink, request } from './api.js';

const PAGE = 10000;

async function* pages(id, format, after = 0) {
  const q = new URLSearchParams({ limit: PAGE });
  if (after) q.set('after', after);
  if (format === 'csv') q.set('format', 'csv');
  let url = `/v1/jobs/${encodeURIComponent(id)}/trace?${q}`;
  while (url) {
    const resp = await request('GET', url);
    url = nextLink(resp);
    yield resp;
  }
}

// Every JSON row with iteration t > after.
export async function traceRows(id, after = 0) {
  const rows = [];
  for await (const resp of pages(id, 'json', after)) {
    const body = await resp.json();
    for (const r of body.rows) rows.push(r);
    if (!body.rows.length) break;
  }
  return rows;
}

// The whole trace as one CSV text (one header line).
export async function traceCSV(id) {
  let text = '';
  for await (const resp of pages(id, 'csv')) {
    const page = await resp.text();
    const body = text ? page.slice(page.indexOf('\n') + 1) : page;
    if (text && !body) break;
    text += body;
  }
  return text;
}
