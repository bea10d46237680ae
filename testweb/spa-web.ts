/**
 * The fake single-page-app web: a site whose pages are empty shells until their script runs, for
 * the renderer's tests and the crawler's rendering integration. A request handler (serve it with
 * `serveHandler`), and a log of every request with its time and Host, so that a test can assert
 * politeness (no two requests to a host closer than the crawl's delay) and what was never asked
 * for (images, the page the crawler already fetched, a popup).
 *
 * Routes:
 *   /                  the app shell: `<div id="root">` filled by /app.js from /api/pages.json
 *                      (a nav of router links, the home text `spahome`)
 *   /docs/N            N in 1..pages: the same shell; /app.js renders /api/page/N.json — title
 *                      (document.title too), headings, `spawordN` in a sentence, links to the
 *                      next pages (links that exist only after rendering), an image (/img/N.png)
 *   /latest            the shell; the app routes itself (history.replaceState) to /docs/<pages>
 *   /plain             server-rendered text and links (`plainword`), plus a small script that adds
 *                      `plainscriptword`
 *   /spin              a shell whose script loops forever after a tick
 *   /alert             a shell whose script calls alert(), confirm(), window.open('/popup'),
 *                      then renders `alertword`
 *   /huge              a shell whose script fetches /api/huge (hugeBytes, streamed, never buffered)
 *   /many              a shell whose script fetches /api/item/0 … /api/item/<many - 1> in turn,
 *                      then renders `manyword`
 *   /bigdom            a shell whose script writes `bigdomword` into the DOM until it holds 6 MB of text
 *   /longpoll          a shell whose script renders `longpollword`, then waits on /api/wait, which
 *                      never answers (a long-poll: the network is never quiet)
 *   /storage           renders `storage-empty` when localStorage and cookies hold nothing from an
 *                      earlier visit (`storage-seen` otherwise), then writes both
 *   /app.js, /app.css, /fonts/spa.woff2, /img/N.png   the app's assets (a font and images that a
 *                      renderer should never fetch)
 *   /api/pages.json, /api/page/N.json, /api/item/N, /api/huge, /api/wait   the app's data
 *   /robots.txt        allows everything but the `disallow` paths
 *   anything else      404
 * There is no /crash: nothing a page can do crashes a tab reliably (chrome://crash is refused to
 * pages).
 */
import type { RequestListener, ServerResponse } from 'node:http';

export type SpaWebOptions = {
  /** Pages under /docs/ (default 12). */
  readonly pages?: number;
  /** Paths disallowed by robots.txt, e.g. ['/docs/2'] (default none). */
  readonly disallow?: readonly string[];
  /** Size of /api/huge (default 200 MB). */
  readonly hugeBytes?: number;
  /** Requests /many makes (default 50). */
  readonly many?: number;
};

export type SpaRequest = { readonly path: string; readonly at: number; readonly host: string };

export type SpaWeb = { readonly handler: RequestListener; readonly log: SpaRequest[] };

const WORDS = ['amber', 'basalt', 'cobalt', 'dune', 'ember', 'fjord', 'garnet', 'harbor', 'indigo', 'juniper', 'kelp', 'lagoon'];

/** Page N's words: `spawordN` and a sentence of its own, so that a search can tell pages apart. */
function pageData(n: number, pages: number) {
  const word = WORDS[(n - 1) % WORDS.length] ?? 'plain';
  const next = [n + 1, n + 2].filter((m) => m <= pages);
  return {
    n,
    title: `Doc ${n}: the ${word} chapter`,
    headings: [`About ${word}`, `Where ${word} leads`],
    text: `spaword${n} is the distinctive word of page ${n}, which tells the story of the ${word} chapter.`,
    links: next.map((m) => ({ href: `/docs/${m}`, text: `Read doc ${m}` })),
  };
}

const shell = (script: string, title = 'Loading…') => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title><link rel="stylesheet" href="/app.css"></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div>
<img src="/img/logo.png" alt=""><script src="${script}"></script></body></html>`;

/** The router app: one script for / and /docs/N (and /latest, which routes itself). */
const APP_JS = `(function () {
  var root = document.getElementById('root');
  function el(tag, text, attrs) {
    var e = document.createElement(tag);
    if (text) e.textContent = text;
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    return e;
  }
  function link(href, text) {
    var a = el('a', text, { href: href, 'data-route': '' });
    return a;
  }
  function getJson(url) { return fetch(url).then(function (r) { return r.json(); }); }
  function home() {
    return getJson('/api/pages.json').then(function (pages) {
      document.title = 'SPA home';
      root.replaceChildren(el('h1', 'The spahome of the single-page app'));
      var nav = el('nav');
      pages.forEach(function (p) { nav.appendChild(link(p.path, p.title)); });
      root.appendChild(nav);
      root.appendChild(el('p', 'Welcome: spahome lists every doc of this app.'));
    });
  }
  function doc(n) {
    return getJson('/api/page/' + n + '.json').then(function (p) {
      document.title = p.title;
      root.replaceChildren(el('h1', p.title));
      p.headings.forEach(function (h) { root.appendChild(el('h2', h)); });
      root.appendChild(el('p', p.text));
      root.appendChild(el('img', '', { src: '/img/' + n + '.png', alt: '' }));
      var nav = el('nav');
      p.links.forEach(function (l) { nav.appendChild(link(l.href, l.text)); });
      nav.appendChild(link('/', 'Home'));
      root.appendChild(nav);
    });
  }
  function route() {
    var path = location.pathname;
    if (path === '/latest') { history.replaceState(null, '', '/docs/' + window.SPA_PAGES); path = location.pathname; }
    var m = /^\\/docs\\/(\\d+)$/.exec(path);
    return m ? doc(Number(m[1])) : home();
  }
  document.addEventListener('click', function (e) {
    var a = e.target.closest && e.target.closest('a[data-route]');
    if (!a) return;
    e.preventDefault();
    history.pushState(null, '', a.getAttribute('href'));
    route();
  });
  window.addEventListener('popstate', route);
  route();
})();`;

const PLAIN = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A plain page</title></head>
<body><h1>Server-rendered plainword</h1>
<p>This page says plainword without any script: its text and links are in the HTML.</p>
<nav><a href="/docs/1">Doc 1</a> <a href="/">Home</a></nav>
<script>document.body.appendChild(Object.assign(document.createElement('p'), { textContent: 'plainscriptword added by a script' }));</script>
</body></html>`;

const inline = (title: string, code: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>
<body><div id="root"></div><script>${code}</script></body></html>`;

const SPIN = inline('Spinning', `setTimeout(function () { for (;;) {} }, 0);`);

const ALERT = inline(
  'Alerting',
  `window.addEventListener('beforeunload', function (e) { e.preventDefault(); e.returnValue = 'stay'; });
alert('x'); confirm('sure?'); window.open('/popup');
document.getElementById('root').textContent = 'The alertword page rendered after its dialogs.';`,
);

const HUGE = inline(
  'Huge',
  `fetch('/api/huge').then(function (r) { return r.text(); }).then(function (t) {
  document.getElementById('root').textContent = 'hugeword ' + t.length;
});`,
);

const many = (count: number) =>
  inline(
    'Many requests',
    `(async function () {
  for (var i = 0; i < ${count}; i++) await fetch('/api/item/' + i);
  document.getElementById('root').textContent = 'manyword after ${count} requests';
})();`,
  );

const BIGDOM = inline('Big DOM', `document.getElementById('root').textContent = 'bigdomword '.repeat(600000);`);

const LONGPOLL = inline(
  'Long poll',
  `document.getElementById('root').textContent = 'longpollword, then waiting for news';
fetch('/api/wait').then(function (r) { return r.text(); }).then(function (t) { document.body.append(t); });`,
);

const STORAGE = inline(
  'Storage',
  `var seen = localStorage.getItem('spa-seen') || document.cookie.indexOf('spa-seen=') >= 0;
document.getElementById('root').textContent = seen ? 'storage-seen' : 'storage-empty';
localStorage.setItem('spa-seen', 'yes'); document.cookie = 'spa-seen=yes; max-age=3600; path=/';`,
);

export function spaWeb(options: SpaWebOptions = {}): SpaWeb {
  const pages = options.pages ?? 12;
  const hugeBytes = options.hugeBytes ?? 200 * 1024 * 1024;
  const log: SpaRequest[] = [];
  const disallow = (options.disallow ?? []).map((p) => `Disallow: ${p}\n`).join('');

  const handler: RequestListener = (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    log.push({ path, at: Date.now(), host: req.headers.host ?? '' });
    const docMatch = /^\/docs\/(\d+)$/.exec(path);
    const apiMatch = /^\/api\/page\/(\d+)\.json$/.exec(path);
    const inRange = (n: number) => n >= 1 && n <= pages;

    if (path === '/' || path === '/latest' || (docMatch && inRange(Number(docMatch[1])))) {
      return send(res, 'text/html; charset=utf-8', shell('/app.js'));
    }
    if (path === '/app.js') return send(res, 'text/javascript', `window.SPA_PAGES = ${pages};\n${APP_JS}`);
    if (path === '/app.css')
      return send(
        res,
        'text/css',
        `@font-face { font-family: spa; src: url(/fonts/spa.woff2); }\nbody { font-family: spa, sans-serif; background: url(/img/bg.png); }`,
      );
    if (path === '/api/pages.json') {
      return send(
        res,
        'application/json',
        JSON.stringify(Array.from({ length: pages }, (_, i) => ({ path: `/docs/${i + 1}`, title: pageData(i + 1, pages).title }))),
      );
    }
    if (apiMatch && inRange(Number(apiMatch[1]))) return send(res, 'application/json', JSON.stringify(pageData(Number(apiMatch[1]), pages)));
    if (/^\/api\/item\/\d+$/.test(path)) return send(res, 'application/json', `{"item":${JSON.stringify(path)}}`);
    if (path === '/api/huge') return streamHuge(res, hugeBytes);
    if (path === '/plain') return send(res, 'text/html; charset=utf-8', PLAIN);
    if (path === '/spin') return send(res, 'text/html; charset=utf-8', SPIN);
    if (path === '/alert') return send(res, 'text/html; charset=utf-8', ALERT);
    if (path === '/huge') return send(res, 'text/html; charset=utf-8', HUGE);
    if (path === '/many') return send(res, 'text/html; charset=utf-8', many(options.many ?? 50));
    if (path === '/bigdom') return send(res, 'text/html; charset=utf-8', BIGDOM);
    if (path === '/longpoll') return send(res, 'text/html; charset=utf-8', LONGPOLL);
    if (path === '/api/wait') return void res.writeHead(200, { 'content-type': 'text/plain' }).flushHeaders(); // and never ends
    if (path === '/storage') return send(res, 'text/html; charset=utf-8', STORAGE);
    if (path === '/robots.txt') return send(res, 'text/plain', `User-agent: *\n${disallow}Allow: /\n`);
    if (path.startsWith('/img/') || path.startsWith('/fonts/')) return send(res, 'application/octet-stream', 'not really an image');
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  };
  return { handler, log };
}

function send(res: ServerResponse, type: string, body: string): void {
  res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body);
}

/** JSON-ish text generated as it is sent, with backpressure, until `bytes` or until the client goes. */
function streamHuge(res: ServerResponse, bytes: number): void {
  const chunk = Buffer.from(`"${'hugefiller '.repeat(5957)}",\n`); // ~64 KiB
  let sent = 0;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes });
  const pump = (): void => {
    while (sent < bytes && !res.destroyed) {
      const piece = bytes - sent >= chunk.length ? chunk : chunk.subarray(0, bytes - sent);
      sent += piece.length;
      if (!res.write(piece)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  pump(); // a client that goes away destroys `res`, which ends the loop (and no 'drain' comes)
}
