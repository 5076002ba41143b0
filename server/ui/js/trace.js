// trace.js -- a job's whole trace: the rows for the plots page after page
// (each page names the next in its Link header, rel="next"), so memory
// stays bounded per request; the CSV download in one streamed answer.

import { nextLink, request } from './api.js';

const PAGE = 10000;

async function* pages(id, after = 0) {
  const q = new URLSearchParams({ limit: PAGE });
  if (after) q.set('after', after);
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
  for await (const resp of pages(id, after)) {
    const body = await resp.json();
    for (const r of body.rows) rows.push(r);
    if (!body.rows.length) break;
  }
  return rows;
}

// The whole trace as one CSV text: without a limit the server streams
// every row.
export async function traceCSV(id) {
  return (await request('GET', `/v1/jobs/${encodeURIComponent(id)}/trace?format=csv`)).text();
}
