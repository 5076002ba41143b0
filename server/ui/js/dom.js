// dom.js -- building elements without innerHTML, and number/time formats.

const isAttrs = (a) => a !== null && typeof a === 'object' && !(a instanceof Node) && !Array.isArray(a);

// h('tr', {class: 'x', onclick: f}, child, ...): the attributes may be
// left out; children may be strings, nodes, null (skipped) or arrays.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (!isAttrs(attrs)) {
    children.unshift(attrs);
    attrs = {};
  }
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k in el && typeof v !== 'string') el[k] = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export function num(v, digits = 6) {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  if (typeof v !== 'number') return String(v);
  if (Number.isInteger(v) && Math.abs(v) < 1e9) return String(v);
  return v.toPrecision(digits).replace(/(\.\d*?)0+(e|$)/, '$1$2').replace(/\.(e|$)/, '$1');
}

export function age(iso) {
  if (!iso) return '–';
  const s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  if (s < 60) return `${Math.floor(s)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86400)} d`;
}

export function duration(s) {
  if (s === null || s === undefined || !Number.isFinite(s)) return '–';
  if (s < 1) return `${(s * 1000).toFixed(0)} ms`;
  if (s < 120) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

export function stateBadge(state) {
  return h('span', { class: `state state-${state}` }, state);
}

// Saves text (or a Blob) as a file through an object URL.
export function download(name, data, type = 'text/plain') {
  const blob = data instanceof Blob ? data : new Blob([data], { type });
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

export function errorBox(err) {
  const items = (err.members || []).map(([p, r]) => h('li', h('code', p || '(body)'), ' ', r));
  return h('div', { class: 'error', role: 'alert' },
    h('strong', err.status ? `HTTP ${err.status}: ` : 'Error: '), err.message,
    items.length ? h('ul', items) : null);
}
