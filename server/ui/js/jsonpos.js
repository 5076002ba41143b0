// jsonpos.js -- where each member of a JSON text starts, by JSON pointer
// (RFC 6901), so an error can be shown beside the member it names.

function escapeToken(s) {
  return String(s).replace(/~/g, '~0').replace(/\//g, '~1');
}

// pointer -> offset of the member's key (or of an array item's value).
// A text that does not parse gives the members seen before the error.
export function memberOffsets(text) {
  const map = new Map([['', 0]]);
  let i = 0;
  const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
  const string = () => {
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i));
  };
  function value(ptr) {
    ws();
    const c = text[i];
    if (c === '{') {
      i++; ws();
      if (text[i] === '}') { i++; return; }
      for (;;) {
        ws();
        const at = i;
        const key = string();
        const p = `${ptr}/${escapeToken(key)}`;
        map.set(p, at);
        ws(); if (text[i++] !== ':') throw new Error('colon');
        value(p);
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i++] !== '}') throw new Error('object');
        return;
      }
    }
    if (c === '[') {
      i++; ws();
      if (text[i] === ']') { i++; return; }
      for (let k = 0; ; k++) {
        ws();
        map.set(`${ptr}/${k}`, i);
        value(`${ptr}/${k}`);
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i++] !== ']') throw new Error('array');
        return;
      }
    }
    if (c === '"') { string(); return; }
    const m = /^-?[\d.eE+-]+|^true|^false|^null/.exec(text.slice(i, i + 64));
    if (!m) throw new Error('value');
    i += m[0].length;
  }
  try { value(''); } catch { /* partial map */ }
  return map;
}

// The 1-based line of the member a pointer names, or of its nearest
// ancestor present in the text (a missing member is reported at its
// parent).
export function lineOf(text, pointer, offsets = memberOffsets(text)) {
  let p = pointer || '';
  while (!offsets.has(p) && p) p = p.slice(0, p.lastIndexOf('/'));
  const at = offsets.get(p) ?? 0;
  return text.slice(0, at).split('\n').length;
}
