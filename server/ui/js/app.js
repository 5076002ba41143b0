// app.js -- the dashboard's shell: hash routes, the token dialog, the
// banner that says why something was refused.

import { getJSON, setToken, token } from './api.js';
import { h, replace } from './dom.js';
import * as jobs from './jobs.js';
import * as job from './job.js';
import * as compare from './compare.js';
import * as submit from './submit.js';

const view = document.getElementById('view');
const banner = document.getElementById('banner');
let unmount = null;

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, '') || 'jobs';
  const [path, query] = raw.split('?');
  return { parts: path.split('/').filter(Boolean), params: new URLSearchParams(query || '') };
}

function route() {
  const { parts, params } = parseHash();
  unmount?.();
  unmount = null;
  hideBanner();
  replace(view);
  let mod = jobs;
  if (parts[0] === 'jobs' && parts[1]) { mod = job; params.set('id', decodeURIComponent(parts[1])); }
  else if (parts[0] === 'compare') mod = compare;
  else if (parts[0] === 'submit') mod = submit;
  for (const a of document.querySelectorAll('[data-nav]')) {
    a.classList.toggle('active', a.dataset.nav === (mod === job ? 'jobs' : parts[0] || 'jobs'));
  }
  unmount = mod.mount(view, params) || null;
}

export function showBanner(...children) {
  replace(banner, ...children);
  banner.hidden = false;
}

function hideBanner() {
  banner.hidden = true;
}

// ----------------------------------------------------------- the token --

const dialog = document.getElementById('token-dialog');
const input = document.getElementById('token-input');

function askToken(reason) {
  document.getElementById('token-reason').textContent = reason;
  input.value = '';
  if (!dialog.open) dialog.showModal();
  input.focus();
}

dialog.addEventListener('close', () => {
  if (dialog.returnValue === 'save' && input.value.trim()) setToken(input.value.trim());
  else if (dialog.returnValue === 'forget') setToken('');
  else return;
  input.value = '';
  updateTokenButton();
  route();
  showVersion();
});

function updateTokenButton() {
  document.getElementById('token-button').textContent = token() ? 'Token ✓' : 'Token';
}

document.getElementById('token-button').addEventListener('click', () =>
  askToken(token() ? 'A token is set for this tab. Enter another, or forget it.'
    : 'Enter a bearer token (ircgd --tokens-file).'));

// 401: ask for a token.  403: the token is valid but its scope too low.
window.addEventListener('ircg-auth', (e) => {
  const { err, method, path } = e.detail;
  if (err.status === 401) {
    askToken(token() ? 'The server did not accept this token. Enter another.'
      : 'This server needs a token.');
  } else {
    const scope = /scope (\w+);/.exec(err.message)?.[1];
    showBanner(h('strong', 'This token cannot do that: '),
      `${method} ${path.split('?')[0]} needs ${scope ? `a token of scope ${scope}` : 'a token of a higher scope'}. `,
      h('button', { type: 'button', class: 'secondary', onclick: () => askToken('Enter a token with more scope.') }, 'Use another token'));
  }
});

async function showVersion() {
  try {
    const v = await getJSON('/v1/version');
    document.getElementById('server-version').textContent = `ircgd ${v.ircgd}`;
  } catch { /* a token may be needed first: the dialog says so */ }
}

window.addEventListener('hashchange', route);
updateTokenButton();
route();
showVersion();
