// ui_auth_test.mjs BASE_URL READ_TOKEN SUBMIT_TOKEN -- the dashboard on a
// daemon with tokens: the page asks for a token (401), works with a read
// token, says what a read token cannot do (403 on the dry run) and takes a
// better one; no request ever carries a token in its URL.  The 401s and
// 403s this provokes are expected; any other problem fails.  Exit 0 on
// success, 1 on failure, 77 without a browser.

import { runTest } from './cdp.mjs';

const [base, readToken, submitToken] = process.argv.slice(2);
const step = (s) => console.log(`  ${s}`);

// The dialog's close handler stores the token, marks the button and
// starts the page again, in that order.
async function enterToken(b, token) {
  await b.waitFor('document.querySelector("#token-dialog").open', 15000, 'the token dialog');
  await b.type('#token-input', token);
  await b.click('#token-save');
  await b.waitFor(`!document.querySelector("#token-dialog").open && sessionStorage.getItem("ircg.token") === ${JSON.stringify(token)}`);
}

async function main(b) {
  b.allowed.push((kind, text) => kind === 'response' && /^40[13] /.test(text));
  b.allowed.push((kind, text) => kind === 'log' && /status of 40[13]/.test(text));
  await b.goto(`${base}/ui/`);
  await enterToken(b, readToken);
  await b.waitFor('document.querySelector("#jobs-status")?.textContent.includes("Page 1")', 15000, 'the list with a read token');
  step('asked for a token; the list loads with a read token');

  await b.goto(`${base}/ui/#/submit`);
  await b.waitFor('document.querySelectorAll("#example-select option").length > 1');
  await b.select('#example-select', '0');
  await b.waitFor('!document.querySelector("#banner").hidden && document.querySelector("#banner").textContent.includes("needs a token of scope submit")', 15000, 'the 403 banner');
  step('a read token is told it cannot submit');
  await b.click('#banner button');
  await enterToken(b, submitToken);
  // the page starts again with the new token
  await b.waitFor('document.querySelectorAll("#example-select option").length > 1');
  await b.select('#example-select', String(await b.eval(`[...document.querySelectorAll('#example-select option')].findIndex((o) => o.textContent === 'least-norm (full)') - 1`)));
  await b.waitFor('document.querySelector("#spec-verdict").textContent.startsWith("Valid")', 15000, 'a dry run with the submit token')
    .catch(async (err) => {
      const seen = await b.eval('[document.querySelector("#spec-verdict").textContent, sessionStorage.getItem("ircg.token"), document.querySelector("#example-select").value, document.querySelector("#token-dialog").open]');
      throw new Error(`${err.message} (verdict, token, example, dialog: ${JSON.stringify(seen)})`);
    });
  step('a submit token validates');

  const stored = await b.eval('sessionStorage.getItem("ircg.token")');
  if (stored !== submitToken) throw new Error('the token is not in sessionStorage');
  const leaked = [...(b.urls?.values() || [])].filter((u) => u.includes(readToken) || u.includes(submitToken));
  if (leaked.length) throw new Error(`a token appeared in a URL: ${leaked[0]}`);
  if (!b.urls?.size) throw new Error('no request was seen');
  step(`no token in any of ${b.urls.size} request URLs`);
}

await runTest(main);
