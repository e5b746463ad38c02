/**
 * The browsable API reference at /api/v2/docs: one self-contained HTML page (no CDN, no external
 * script) that fetches the OpenAPI document and renders every operation with its parameters and
 * responses, plus a small form to try a call with your key (kept in sessionStorage only).
 * Descriptions are Markdown (CommonMark's common subset: paragraphs, `-` lists, `code`,
 * **strong**, *emphasis*, [links](url)) rendered by the page's own small renderer into DOM nodes:
 * all text is inserted with textContent, never as HTML, and only http(s), relative and # links
 * become anchors.
 */
export function docsPage(openapiUrl: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mars rover photo query API - reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
header{background:#8a2b0e;color:#fff;padding:1rem 2rem}header h1{margin:0;font-size:1.4rem}
main{max-width:1100px;margin:0 auto;padding:1rem 2rem}
.desc{background:#fff;border:1px solid #ddd;padding:.8rem 1rem;border-radius:6px}
details.op{background:#fff;border:1px solid #ddd;border-radius:6px;margin:.5rem 0}
details.op>summary{cursor:pointer;padding:.5rem .8rem;display:flex;gap:.8rem;align-items:baseline}
.m{font:700 .8rem monospace;padding:.15rem .5rem;border-radius:4px;color:#fff;background:#2a6fb0;min-width:3.5rem;text-align:center}
.m.post{background:#2f8f46}.path{font-family:monospace;font-weight:600}.sum{color:#555}
.body{padding:0 1rem 1rem}table{border-collapse:collapse;width:100%;font-size:.9rem}
td,th{border-bottom:1px solid #eee;padding:.3rem .4rem;text-align:left;vertical-align:top}
code,pre{font-family:ui-monospace,monospace;font-size:.85rem}pre{background:#f3f3f3;padding:.6rem;overflow:auto;max-height:24rem;border-radius:4px}
input{font:inherit;padding:.2rem .4rem;width:100%;box-sizing:border-box}button{font:inherit;padding:.3rem 1rem;cursor:pointer}
.md p{margin:.3rem 0}.md ul{margin:.3rem 0 .3rem 1.2rem;padding:0}.md code{background:#f0f0f0;padding:0 .2rem;border-radius:3px}
.key{display:flex;gap:.5rem;align-items:center;margin:1rem 0}.key input{max-width:30rem}
h2{margin-top:1.6rem}.tag{color:#8a2b0e}
.json-body{width:100%}
</style></head>
<body><header><h1>Mars rover photo query API</h1><div id="ver"></div></header>
<main>
<div class="key"><label for="apikey">X-API-Key</label><input id="apikey" placeholder="mv_live_..." autocomplete="off"> <a href="/dashboard">Get a key</a></div>
<div id="info" class="desc">Loading the OpenAPI document...</div>
<div id="ops"></div>
</main>
<script>
(function () {
  var SPEC = ${JSON.stringify(openapiUrl)};
  var keyInput = document.getElementById('apikey');
  try { keyInput.value = sessionStorage.getItem('apikey') || '' } catch (e) {}
  keyInput.addEventListener('change', function () { try { sessionStorage.setItem('apikey', keyInput.value) } catch (e) {} });
  function el(tag, attrs, kids) {
    var n = document.createElement(tag);
    for (var k in attrs || {}) { if (k === 'text') n.textContent = attrs[k]; else n.setAttribute(k, attrs[k]); }
    (kids || []).forEach(function (c) { if (c) n.appendChild(typeof c === 'string' ? document.createTextNode(c) : c) });
    return n;
  }
  function md(text) {
    var box = el('div', { class: 'md' });
    String(text || '').split(/\\n\\s*\\n/).forEach(function (block) {
      var lines = block.split('\\n').filter(function (l) { return l.trim() !== '' });
      if (!lines.length) return;
      if (lines.every(function (l) { return /^\\s*[-*] /.test(l) })) {
        var ul = el('ul');
        lines.forEach(function (l) { ul.appendChild(inline(el('li'), l.replace(/^\\s*[-*] /, ''))) });
        box.appendChild(ul);
      } else box.appendChild(inline(el('p'), lines.join(' ')));
    });
    return box;
  }
  function inline(node, s) {
    var re = /(\`[^\`]+\`)|(\\*\\*[^*]+\\*\\*)|(\\*[^*\\s][^*]*\\*)|(\\[([^\\]]+)\\]\\(([^)\\s]+)\\))/g, last = 0, m;
    while ((m = re.exec(s))) {
      if (m.index > last) node.appendChild(document.createTextNode(s.slice(last, m.index)));
      if (m[1]) node.appendChild(el('code', { text: m[1].slice(1, -1) }));
      else if (m[2]) node.appendChild(el('strong', { text: m[2].slice(2, -2) }));
      else if (m[3]) node.appendChild(el('em', { text: m[3].slice(1, -1) }));
      else node.appendChild(/^(https?:\\/\\/|\\/|#)/.test(m[6]) ? el('a', { href: m[6], text: m[5] }) : document.createTextNode(m[5]));
      last = re.lastIndex;
    }
    if (last < s.length) node.appendChild(document.createTextNode(s.slice(last)));
    return node;
  }
  function resolve(doc, obj) {
    var seen = 0;
    while (obj && obj.$ref && seen++ < 10) {
      obj = obj.$ref.replace(/^#\\//, '').split('/').reduce(function (o, k) { return o && o[k] }, doc);
    }
    return obj;
  }
  function typeOf(s) {
    if (!s) return '';
    var t = s.type || (s.anyOf ? s.anyOf.map(typeOf).join(' | ') : s.const !== undefined ? JSON.stringify(s.const) : '');
    var r = [];
    if (s.minimum !== undefined) r.push('>= ' + s.minimum);
    if (s.maximum !== undefined) r.push('<= ' + s.maximum);
    if (s.pattern) r.push('pattern ' + s.pattern);
    if (s.enum) r.push('one of ' + s.enum.join(', '));
    if (s.default !== undefined) r.push('default ' + JSON.stringify(s.default));
    return t + (r.length ? ' (' + r.join('; ') + ')' : '');
  }
  function render(doc) {
    document.getElementById('ver').textContent = 'OpenAPI ' + doc.openapi + ' - version ' + doc.info.version + ' - ' + SPEC;
    var info = document.getElementById('info');
    info.textContent = '';
    info.appendChild(md(doc.info.description));
    var ops = document.getElementById('ops');
    var byTag = {};
    Object.keys(doc.paths).forEach(function (p) {
      Object.keys(doc.paths[p]).forEach(function (m) {
        var op = doc.paths[p][m];
        var tag = (op.tags && op.tags[0]) || 'other';
        (byTag[tag] = byTag[tag] || []).push({ path: p, method: m, op: op });
      });
    });
    Object.keys(byTag).sort().forEach(function (tag) {
      ops.appendChild(el('h2', { class: 'tag', text: tag }));
      var note = (doc.tags || []).filter(function (t) { return t.name === tag })[0];
      if (note && note.description) ops.appendChild(el('p', { text: note.description }));
      byTag[tag].forEach(function (e) { ops.appendChild(operation(doc, e.path, e.method, e.op)) });
    });
  }
  function operation(doc, path, method, op) {
    var params = (op.parameters || []).map(function (p) { return resolve(doc, p) });
    var rows = params.map(function (p) {
      return el('tr', {}, [el('td', {}, [el('code', { text: p.name })]), el('td', { text: p.in + (p.required ? ', required' : '') }), el('td', { text: typeOf(p.schema) }), el('td', {}, [md(p.description)])]);
    });
    var inputs = {};
    var form = el('table', {}, params.map(function (p) {
      var i = el('input', { placeholder: p.name });
      inputs[p.name] = { input: i, where: p.in };
      return el('tr', {}, [el('td', {}, [el('code', { text: p.name })]), el('td', {}, [i])]);
    }));
    var body = null;
    if (op.requestBody) { body = el('textarea', { rows: '3', class: 'json-body', placeholder: 'JSON body' }); }
    var out = el('pre', { text: '' });
    var send = el('button', { text: 'Send' });
    send.addEventListener('click', function () {
      var url = path, qs = new URLSearchParams();
      Object.keys(inputs).forEach(function (n) {
        var v = inputs[n].input.value;
        if (!v) return;
        if (inputs[n].where === 'path') url = url.replace('{' + n + '}', encodeURIComponent(v)); else qs.append(n, v);
      });
      var q = qs.toString();
      var init = { method: method.toUpperCase(), headers: {} };
      if (keyInput.value) init.headers['X-API-Key'] = keyInput.value;
      if (body) { init.headers['Content-Type'] = 'application/json'; init.body = body.value; }
      out.textContent = '...';
      fetch(url + (q ? '?' + q : ''), init).then(function (r) {
        var hs = [];
        r.headers.forEach(function (v, k) { if (/^(etag|x-ratelimit|retry-after|content-type|cache-control)/i.test(k)) hs.push(k + ': ' + v) });
        return r.text().then(function (t) {
          var pretty = t;
          try { pretty = JSON.stringify(JSON.parse(t), null, 2) } catch (e) {}
          out.textContent = r.status + ' ' + r.statusText + '\\n' + hs.join('\\n') + '\\n\\n' + pretty;
        });
      }).catch(function (e) { out.textContent = String(e) });
    });
    var responses = Object.keys(op.responses).map(function (status) {
      var r = resolve(doc, op.responses[status]);
      var c = r.content && (r.content['application/json'] || r.content[Object.keys(r.content)[0]]);
      var sch = c && c.schema ? resolve(doc, c.schema) : null;
      var det = el('details', {}, [el('summary', {}, [el('b', { text: status }), ' ' + (r.description || '')])]);
      if (sch) det.appendChild(el('pre', { text: JSON.stringify(sch, null, 2) }));
      return det;
    });
    return el('details', { class: 'op' }, [
      el('summary', {}, [el('span', { class: 'm ' + method, text: method.toUpperCase() }), el('span', { class: 'path', text: path }), el('span', { class: 'sum', text: op.summary || '' })]),
      el('div', { class: 'body' }, [
        op.description ? md(op.description) : null,
        op.security && op.security.length === 0 ? el('p', {}, [el('i', { text: 'No key needed.' })]) : null,
        rows.length ? el('h4', { text: 'Parameters' }) : null,
        rows.length ? el('table', {}, [el('tr', {}, ['Name', 'In', 'Schema', 'Description'].map(function (h) { return el('th', { text: h }) }))].concat(rows)) : null,
        el('h4', { text: 'Responses' })
      ].concat(responses).concat([el('h4', { text: 'Try it' }), form, body, send, out]))
    ]);
  }
  fetch(SPEC).then(function (r) { return r.json() }).then(render).catch(function (e) {
    document.getElementById('info').textContent = 'Could not load ' + SPEC + ': ' + e;
  });
})();
</script></body></html>`
}
