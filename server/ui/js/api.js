// api.js -- every request of the dashboard: same origin, JSON, the bearer
// token from the session (never in a URL), problem+json errors as ApiError.

const TOKEN_KEY = 'ircg.token';

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

export function setToken(value) {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

// An HTTP answer that is not a success; `problem` is the problem+json body
// when there is one.
export class ApiError extends Error {
  constructor(status, problem, fallback) {
    super(problem?.detail || problem?.title || fallback || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || null;
  }
  // [pointer, reason] pairs of a validation problem
  get members() {
    return (this.problem?.errors || []).map((e) => [e.pointer, e.reason]);
  }
}

export function headers(extra = {}) {
  const h = { ...extra };
  const t = token();
  if (t) h.Authorization = `Bearer ${t}`;
  return h;
}

// 401 and 403 are announced to the page (it asks for a token, or says what
// this one cannot do) as well as thrown.
function announce(err, method, path) {
  if (err.status === 401 || err.status === 403) {
    window.dispatchEvent(new CustomEvent('ircg-auth', { detail: { err, method, path } }));
  }
}

export async function request(method, path, { body, type, accept, signal } = {}) {
  const h = headers(accept ? { Accept: accept } : {});
  if (body !== undefined) h['Content-Type'] = type || 'application/json';
  const resp = await fetch(path, {
    method, headers: h, signal, cache: 'no-store',
    body: body === undefined || typeof body === 'string' || body instanceof Blob ||
      body instanceof ArrayBuffer ? body : JSON.stringify(body),
  });
  if (!resp.ok) {
    let problem = null;
    const ctype = resp.headers.get('Content-Type') || '';
    if (ctype.includes('json')) problem = await resp.json().catch(() => null);
    const err = new ApiError(resp.status, problem, resp.statusText);
    announce(err, method, path);
    throw err;
  }
  return resp;
}

export async function getJSON(path, opts) {
  const resp = await request('GET', path, opts);
  return resp.json();
}

export async function sendJSON(method, path, body) {
  const resp = await request(method, path, { body });
  return resp.status === 204 ? null : resp.json();
}

// The target of a Link header's rel="next" (RFC 8288), or null.
export function nextLink(resp) {
  const link = resp.headers.get('Link') || '';
  for (const part of link.split(',')) {
    const m = part.match(/<([^>]*)>\s*;\s*rel="?next"?/);
    if (m) return m[1];
  }
  return null;
}
