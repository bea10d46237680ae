/**
 * The fake web: a loopback HTTP server with one route per behaviour, and a generated link graph.
 * Unit, integration and e2e tests all crawl it. Every request is logged so tests can assert what
 * the crawler asked for (and what it never asked for).
 *
 * Routes:
 *   /                 home: links to everything below (and to another host, and a rel=nofollow link)
 *   /robots.txt       disallows /private/, names /sitemap-index.xml
 *   /sitemap-index.xml  a sitemap index: /sitemap.xml and /sitemap-extra.xml.gz
 *   /sitemap.xml      lists /from-sitemap (linked from nowhere else), with a <lastmod>
 *   /sitemap-extra.xml.gz  a gzipped sitemap listing /from-gz-sitemap
 *   /graph/N          N in [0, graphSize): a page with a unique word `graphwordN` and 3 links
 *   /redirect         301 → /target
 *   /loop-a, /loop-b  redirect to each other forever
 *   /anchored         a page found only by its inbound link text ("Zanzibar cartography", on /)
 *   /meta-refresh     a "Redirecting…" stub whose <meta http-equiv="refresh"> forwards to /refresh-target
 *   /broken           404
 *   /private/secret   disallowed by robots.txt: must never be fetched
 *   /xss              a page titled <script>alert(1)</script>
 *   /noindex          <meta name="robots" content="noindex">
 *   /nofollowed       only reachable through rel="nofollow"
 *   /error            500, always
 *   /big              a body of bigBytes bytes
 *   /gzip             a gzip-encoded page
 *   /latin1           a windows-1252 page ("café crème" in single bytes)
 *   /notes.txt        text/plain, in German by its Content-Language header
 *   /fr               a page in French (<html lang="fr-FR">)
 *   /image.png        a non-text type
 *   /trap/N           an endless chain of pages (depth limit must stop it)
 *   /dup-a, /dup-b    the same content under two URLs (the content-seen test)
 *   /site/…           a small site that changes between two versions (setSiteVersion): /site/edited
 *                     changes its text, /site/deleted answers 404, /site/moved redirects to
 *                     /site/new-home, /site/added appears (linked from /site/), /site/unchanged
 *                     does not change (and answers a conditional request with 304), /site/flaky
 *                     answers 503
 *   /x-robots         noindex by an X-Robots-Tag header
 *   /not-canonical    names /canonical-target as its canonical URL
 *   /sjis, /gb18030   Shift_JIS and GB18030 pages, declared by <meta charset> only
 *   /busy             429 with Retry-After: 1 on the first request, then the page
 */
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export type FakeWebOptions = {
  /** Pages in the generated graph (default 20). */
  readonly graphSize?: number;
  /** Delay before every response, in ms (a slow server; default 0). */
  readonly delayMs?: number;
  /** Size of /big (default 3 MiB). */
  readonly bigBytes?: number;
  /** A URL on another host to link to from the home page (out of scope by default). */
  readonly otherHost?: string;
  /** Loopback address to listen on (default 127.0.0.1). */
  readonly host?: string;
  /** A word added to every graph page, so that two fake webs' pages are not duplicates of each other. */
  readonly graphLabel?: string;
};

export type LoggedRequest = {
  readonly method: string;
  readonly path: string;
  readonly userAgent: string;
  readonly at: number;
  /** The conditional headers sent, if any. */
  readonly ifNoneMatch?: string;
  readonly ifModifiedSince?: string;
  /** The status answered. */
  status?: number;
};

export type FakeWeb = {
  readonly url: string;
  readonly requests: LoggedRequest[];
  /** Emits `request` as each request is logged: what a test waits on while a crawl goes on (testweb/wait.ts). */
  readonly events: EventEmitter<{ request: [LoggedRequest] }>;
  /** Paths requested, in order. */
  paths(): string[];
  /** Switches /site/ to its other version (1: as first crawled; 2: edited, deleted, moved, added). */
  setSiteVersion(version: 1 | 2): void;
  close(): Promise<void>;
};

const page = (title: string, body: string, head = '', lang = 'en') =>
  `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>` +
  `<nav><a href="/">Home</a> <a href="/graph/0">Graph</a></nav><main>${body}</main><footer>fake web footer boilerplate</footer></body></html>`;

export async function startFakeWeb(options: FakeWebOptions = {}): Promise<FakeWeb> {
  const graphSize = options.graphSize ?? 20;
  const requests: LoggedRequest[] = [];
  const events = new EventEmitter<{ request: [LoggedRequest] }>();
  let base = '';

  let siteVersion: 1 | 2 = 1;
  /** A page of /site/ with an ETag; a conditional request that matches it gets 304. */
  const sitePage = (req: IncomingMessage, res: ServerResponse, etag: string, title: string, body: string) => {
    if (!notModified(req, res, etag)) html(res, page(title, body));
  };
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    '/site/': (_q, res) =>
      html(
        res,
        page(
          'Changing site',
          `<ul><li><a href="/site/flaky">Flaky</a></li><li><a href="/site/edited">Edited</a></li>` +
            `<li><a href="/site/unchanged">Unchanged</a></li><li><a href="/site/moved">Moved</a></li>${
              siteVersion === 1 ? '<li><a href="/site/deleted">Deleted</a></li>' : '<li><a href="/site/added">Added</a></li>'
            }</ul>`,
        ),
      ),
    '/site/edited': (q, res) =>
      siteVersion === 1
        ? sitePage(q, res, '"edited-1"', 'Edited page', '<p>editword: the original text.</p>')
        : sitePage(q, res, '"edited-2"', 'Edited page', '<p>editword: the revised text, with revisedword.</p>'),
    '/site/flaky': (q, res) => {
      if (siteVersion === 1) return sitePage(q, res, '"flaky"', 'Flaky page', '<p>flakyword: this server has bad days.</p>');
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('unavailable');
    },
    '/site/unchanged': (q, res) => sitePage(q, res, '"unchanged"', 'Unchanged page', '<p>steadyword stays as it is.</p>'),
    '/site/deleted': (q, res) => (siteVersion === 1 ? sitePage(q, res, '"deleted"', 'Deleted page', '<p>deletedword lives here for now.</p>') : notFound(res)),
    '/site/moved': (q, res) =>
      siteVersion === 1 ? sitePage(q, res, '"moved"', 'Moved page', '<p>movedword at its old home.</p>') : redirect(res, '/site/new-home'),
    '/site/new-home': (q, res) =>
      siteVersion === 2 ? sitePage(q, res, '"new-home"', 'Moved page', '<p>movedword at its new home, newhomeword.</p>') : notFound(res),
    '/site/added': (q, res) => (siteVersion === 2 ? sitePage(q, res, '"added"', 'Added page', '<p>addedword is new.</p>') : notFound(res)),
    '/': (_q, res) =>
      html(
        res,
        page(
          'Fake web home',
          `<h1>Welcome to the fake web</h1><p>The fake web is a test fixture with one route per behaviour. Start at the graph.</p>
<ul><li><a href="/graph/0">Graph start</a></li><li><a href="/redirect">A redirect</a></li><li><a href="/broken">A broken link</a></li>
<li><a href="/private/secret">Private</a></li><li><a href="/xss">XSS</a></li><li><a href="/noindex">Noindex</a></li>
<li><a href="/error">Error</a></li><li><a href="/big">Big</a></li><li><a href="/gzip">Gzip</a></li><li><a href="/latin1">Latin-1</a></li>
<li><a href="/notes.txt">Notes</a></li><li><a href="/fr">Français</a></li><li><a href="/image.png">Image</a></li>` +
            `<li><a href="/trap/0">Trap</a></li><li><a href="/loop-a">Loop</a></li>
<li><a href="/nofollowed" rel="nofollow">Nofollow</a></li><li><a href="/dup-a">Dup A</a></li><li><a href="/dup-b">Dup B</a></li>
<li><a href="/busy">Busy</a></li><li><a href="/x-robots">X-Robots</a></li><li><a href="/not-canonical">Not canonical</a></li>` +
            `<li><a href="/sjis">SJIS</a></li><li><a href="/gb18030">GB18030</a></li><li><a href="/meta-refresh">Moved</a></li>` +
            `<li><a href="/anchored">Zanzibar cartography</a></li><li><a href="mailto:someone@example.org">Mail</a></li>
${options.otherHost ? `<li><a href="${options.otherHost}">Elsewhere</a></li>` : ''}</ul>`,
          '<meta name="description" content="Home page of the fake web used by Trawl tests">',
        ),
      ),
    '/robots.txt': (_q, res) => text(res, `User-agent: *\nDisallow: /private/\n\nSitemap: ${base}/sitemap-index.xml\n`),
    '/sitemap-index.xml': (_q, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
          `<sitemap><loc>${base}/sitemap.xml</loc></sitemap><sitemap><loc>${base}/sitemap-extra.xml.gz</loc></sitemap></sitemapindex>`,
      );
    },
    '/sitemap-extra.xml.gz': (_q, res) => {
      res.writeHead(200, { 'content-type': 'application/gzip' });
      res.end(
        gzipSync(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${base}/from-gz-sitemap</loc></url></urlset>`),
      );
    },
    '/from-gz-sitemap': (_q, res) => html(res, page('Found through a gzipped sitemap', '<p>gzsitemapword</p>')),
    '/sitemap.xml': (_q, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
          `<url><loc>${base}/from-sitemap</loc><lastmod>2026-01-01</lastmod></url></urlset>`,
      );
    },
    '/from-sitemap': (_q, res) => html(res, page('Found through the sitemap', '<p>Only the sitemap links here: sitemapword.</p>')),
    '/redirect': (_q, res) => redirect(res, '/target'),
    '/target': (_q, res) => html(res, page('Redirect target', '<p>You arrived after a redirect: redirectedword.</p>')),
    '/anchored': (_q, res) => html(res, page('Maps', '<p>This page describes nothing in particular.</p>')),
    '/meta-refresh': (_q, res) =>
      html(res, page('Redirecting', '<p>Redirecting to the new page: stubword.</p>', '<meta http-equiv="refresh" content="0; url=/refresh-target">')),
    '/refresh-target': (_q, res) => html(res, page('Refresh target', '<p>You arrived after a meta refresh: refreshedword.</p>')),
    '/loop-a': (_q, res) => redirect(res, '/loop-b'),
    '/loop-b': (_q, res) => redirect(res, '/loop-a'),
    '/broken': (_q, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end(page('Not found', '<p>Nothing here.</p>'));
    },
    '/private/secret': (_q, res) => html(res, page('Secret', '<p>secretword: robots.txt forbids this page.</p>')),
    '/xss': (_q, res) =>
      html(res, page('<script>alert(1)</script>', '<p>xsstest: the title of this page is a script tag. <a href="javascript:alert(2)">js link</a></p>')),
    '/noindex': (_q, res) => html(res, page('Hidden page', '<p>noindexword must not be searchable.</p>', '<meta name="robots" content="noindex">')),
    '/dup-a': (_q, res) => html(res, page('Duplicated page', '<p>dupword: this text is served under two URLs.</p>')),
    '/dup-b': (_q, res) => html(res, page('Duplicated page', '<p>dupword: this text is served under two URLs.</p>')),
    '/busy': (_q, res) => {
      if (requests.filter((r) => r.path === '/busy').length === 1) {
        res.writeHead(429, { 'retry-after': '1', 'content-type': 'text/plain' });
        return res.end('slow down');
      }
      html(res, page('Busy page', '<p>busyword: served on the second request.</p>'));
    },
    '/x-robots': (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'x-robots-tag': 'noindex' });
      res.end(page('Header noindex', '<p>xrobotsword must not be searchable.</p>'));
    },
    '/not-canonical': (_q, res) =>
      html(res, page('A copy', '<p>copyword: a print view of the canonical page.</p>', '<link rel="canonical" href="/canonical-target">')),
    '/canonical-target': (_q, res) => html(res, page('The canonical page', '<p>canonicalword: the page itself.</p>')),
    // Shift_JIS "日本語のページ" and GB18030 "中文网页", as their bytes, declared only in <meta>.
    '/sjis': (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        Buffer.concat([
          Buffer.from('<html><head><meta charset="Shift_JIS"><title>sjis</title></head><body><p>sjisword '),
          Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea, 0x82, 0xcc, 0x83, 0x79, 0x81, 0x5b, 0x83, 0x57]),
          Buffer.from('</p></body></html>'),
        ]),
      );
    },
    '/gb18030': (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        Buffer.concat([
          Buffer.from('<html><head><meta http-equiv="Content-Type" content="text/html; charset=gb18030"><title>gb</title></head><body><p>gbword '),
          Buffer.from([0xd6, 0xd0, 0xce, 0xc4, 0xcd, 0xf8, 0xd2, 0xb3]),
          Buffer.from('</p></body></html>'),
        ]),
      );
    },
    '/nofollowed': (_q, res) => html(res, page('Nofollowed', '<p>nofollowword</p>')),
    '/error': (_q, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error');
    },
    '/big': (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      const chunk = `<p>${'bigword '.repeat(1000)}</p>`;
      let left = options.bigBytes ?? 3 * 1024 * 1024;
      res.write('<html><head><title>Big page</title></head><body>');
      const pump = () => {
        while (left > 0) {
          left -= chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end('</body></html>');
      };
      res.on('error', () => undefined);
      pump();
    },
    '/gzip': (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip' });
      res.end(gzipSync(page('Compressed page', '<p>gzipword arrives compressed.</p>')));
    },
    '/latin1': (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=windows-1252' });
      res.end(encode1252(page('Caf\u00e9 page', '<p>caf\u00e9 cr\u00e8me \u201cquoted\u201d latinword</p>')));
    },
    // Browsers following a result ask for it; a 404 would show in the e2e console check.
    '/favicon.ico': (_q, res) => {
      res.writeHead(204);
      res.end();
    },
    '/notes.txt': (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-language': 'de, en' });
      res.end('Plain text notes.\nplaintextword lives here.');
    },
    '/fr': (_q, res) => html(res, page('Page en français', '<p>Bonjour, frenchword habite ici.</p>', '', 'fr-FR')),
    '/image.png': (_q, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    },
  };

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const logged: LoggedRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      userAgent: String(req.headers['user-agent'] ?? ''),
      at: Date.now(),
      ...(req.headers['if-none-match'] ? { ifNoneMatch: String(req.headers['if-none-match']) } : {}),
      ...(req.headers['if-modified-since'] ? { ifModifiedSince: String(req.headers['if-modified-since']) } : {}),
    };
    requests.push(logged);
    events.emit('request', logged);
    res.on('finish', () => (logged.status = res.statusCode));
    const respond = () => {
      const route = routes[path];
      if (route) return route(req, res);
      const g = /^\/graph\/(\d+)$/.exec(path);
      if (g && Number(g[1]) < graphSize) return graphPage(req, res, Number(g[1]), graphSize, options.graphLabel);
      const t = /^\/trap\/(\d+)$/.exec(path);
      if (t) return html(res, page(`Trap ${t[1]}`, `<p>trapword</p><a href="/trap/${Number(t[1]) + 1}">deeper</a>`));
      notFound(res);
    };
    if (options.delayMs) setTimeout(respond, options.delayMs);
    else respond();
  });
  await new Promise<void>((resolve) => server.listen(0, options.host ?? '127.0.0.1', resolve));
  const addr = server.address() as AddressInfo;
  base = `http://${addr.address}:${addr.port}`;
  return {
    url: `${base}/`,
    requests,
    events,
    paths: () => requests.map((r) => r.path),
    setSiteVersion: (v) => {
      siteVersion = v;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Graph page N: a unique word, and links to three others (so every page is reachable from 0). */
/** A graph page; it never changes, so a conditional request for it is answered 304. */
function graphPage(req: IncomingMessage, res: ServerResponse, n: number, size: number, label = ''): void {
  const links = [n + 1, (n * 7 + 3) % size, (n * 13 + 5) % size].filter((x) => x < size && x !== n);
  if (notModified(req, res, `"graph-${n}${label ? `-${label}` : ''}"`, 'Thu, 01 Jan 2026 00:00:00 GMT')) return;
  html(
    res,
    `<!doctype html><html><head><title>Graph page ${n}</title><meta name="description" content="Page ${n} of the generated graph"></head><body>` +
      `<h1>Graph page ${n}</h1><h2>Section about graphword${n}</h2>` +
      `<p>This page carries the word graphword${n} and links onwards.${label ? ` ${label}` : ''}</p>` +
      links.map((l) => `<a href="/graph/${l}">graph ${l}</a>`).join(' ') +
      '</body></html>',
  );
}

/**
 * Sets a page's validators and, when the request's match them (If-None-Match first, else
 * If-Modified-Since), answers 304 and returns true: the caller sends nothing more.
 */
function notModified(req: IncomingMessage, res: ServerResponse, etag: string, lastModified?: string): boolean {
  res.setHeader('etag', etag);
  if (lastModified) res.setHeader('last-modified', lastModified);
  const ifNoneMatch = req.headers['if-none-match'];
  if (!(ifNoneMatch ? ifNoneMatch === etag : lastModified !== undefined && req.headers['if-modified-since'] === lastModified)) return false;
  res.writeHead(304);
  res.end();
  return true;
}

function notFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end('not found');
}

function html(res: ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(body);
}

function text(res: ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(body);
}

function redirect(res: ServerResponse, to: string): void {
  res.writeHead(301, { location: to });
  res.end();
}

/** Windows-1252 bytes for text whose characters all exist in it (what a legacy server sends). */
function encode1252(s: string): Buffer {
  const special: Record<string, number> = { '\u201c': 0x93, '\u201d': 0x94, '\u20ac': 0x80, '\u2019': 0x92 };
  return Buffer.from(Array.from(s, (ch) => special[ch] ?? ch.charCodeAt(0)));
}
