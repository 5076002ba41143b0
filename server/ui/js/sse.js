// sse.js -- a job's Server-Sent Events through fetch(), since EventSource
// cannot send an Authorization header.  Reconnects with Last-Event-ID
// until the stream ends after the job's 'end' event, or until stopped.

import { headers } from './api.js';

function parseRecord(text) {
  const ev = { id: null, type: 'message', data: '' };
  const data = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith(':')) continue;
    const i = line.indexOf(':');
    const field = i < 0 ? line : line.slice(0, i);
    const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
    if (field === 'id') ev.id = value;
    else if (field === 'event') ev.type = value;
    else if (field === 'data') data.push(value);
  }
  if (!data.length) return null;
  ev.data = data.join('\n');
  return ev;
}

// Calls onEvent({id, type, data (parsed JSON)}) for each event; returns a
// function that stops following.  onEnd() runs once the stream is over.
export function followEvents(jobId, onEvent, { onEnd, onError } = {}) {
  const ctl = new AbortController();
  let lastId = null;
  let ended = false;

  async function once() {
    const h = headers({ Accept: 'text/event-stream' });
    if (lastId) h['Last-Event-ID'] = lastId;
    const resp = await fetch(`/v1/jobs/${encodeURIComponent(jobId)}/events`,
      { headers: h, signal: ctl.signal, cache: 'no-store' });
    if (!resp.ok) throw Object.assign(new Error(`events: HTTP ${resp.status}`),
      { status: resp.status });
    const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += value.replace(/\r\n?/g, '\n');
      let cut;
      while ((cut = buf.indexOf('\n\n')) >= 0) {
        const ev = parseRecord(buf.slice(0, cut));
        buf = buf.slice(cut + 2);
        if (!ev) continue;
        if (ev.id) lastId = ev.id;
        try { ev.data = JSON.parse(ev.data); } catch { /* keep the text */ }
        onEvent(ev);
        if (ev.type === 'end') ended = true;
      }
    }
  }

  (async () => {
    let failures = 0;
    while (!ended && !ctl.signal.aborted) {
      try {
        const before = lastId;
        await once();
        // closed without 'end' (a restart): resume after a pause, but give
        // up on a stream that keeps closing with nothing new
        if (!ended && lastId === before && ++failures > 5) { onError?.(new Error('events: the stream keeps closing')); return; }
        if (!ended) await new Promise((r) => setTimeout(r, 500));
      } catch (err) {
        if (ctl.signal.aborted) return;
        if (err.status >= 400 && err.status < 500) { onError?.(err); return; }
        if (++failures > 5) { onError?.(err); return; }
        await new Promise((r) => setTimeout(r, 500 * failures));
      }
    }
    if (!ctl.signal.aborted) onEnd?.();
  })();
  return () => ctl.abort();
}
