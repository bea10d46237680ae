/**
 * The server's static files (static/), read once at start, each with a digest of its bytes: the
 * digest is its ETag and the `v` of its versioned URL. Trawl's own pages link the versioned URL
 * (`/static/app.js?v=…`), which a browser may keep a year: a new Trawl links a new URL. A request
 * without the current `v` — an embedding page's `/widget.js`, a page rendered by an older Trawl —
 * is kept an hour and then revalidated (a 304 while the file is the same).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Context } from 'hono';
import { ifNoneMatch } from './http-cache.ts';

export type StaticFile = { readonly body: string; readonly type: string; readonly version: string; readonly etag: string };

const TYPES: Readonly<Record<string, string>> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', svg: 'image/svg+xml' };

/** A Map: a name such as `__proto__` or `constructor` must find nothing. */
export const STATIC_FILES: ReadonlyMap<string, StaticFile> = new Map(
  [
    ...['app.js', 'style.css', 'favicon.svg', 'widget.js', 'console.js'].map((name) => [name, new URL(`./static/${name}`, import.meta.url)] as const),
    // The console's charts: uPlot (MIT; small, fast, no dependencies), served from this server — never a CDN.
    ['uplot.js', fromPackage('uplot/dist/uPlot.iife.min.js')] as const,
    ['uplot.css', fromPackage('uplot/dist/uPlot.min.css')] as const,
  ].map(([name, file]) => {
    const body = readFileSync(file, 'utf8');
    const version = createHash('sha256').update(body).digest('base64url').slice(0, 12);
    return [name, { body, type: TYPES[name.slice(name.lastIndexOf('.') + 1)]!, version, etag: `"${version}"` }];
  }),
);

/** A file of an installed package (node_modules beside the code, as shipped: scripts/build.ts). */
function fromPackage(path: string): string {
  return createRequire(import.meta.url).resolve(path);
}

const YEAR = 'public, max-age=31536000, immutable';
const HOUR = 'public, max-age=3600';

/** The URL Trawl's pages link a static file by: changes whenever the file does. */
export function staticUrl(name: string): string {
  const f = STATIC_FILES.get(name);
  return f ? `/static/${name}?v=${f.version}` : `/static/${name}`;
}

/**
 * Answers with a static file: 200 with its ETag and how long to keep it, or 304 when the client
 * holds it. `extra`: more headers (the widget's Cross-Origin-Resource-Policy).
 */
export function sendStatic(c: Context, file: StaticFile, extra: Record<string, string> = {}): Response {
  const headers = { etag: file.etag, 'cache-control': c.req.query('v') === file.version ? YEAR : HOUR, ...extra };
  if (ifNoneMatch(c.req.header('if-none-match'), file.etag)) return c.body(null, 304, headers);
  return c.body(file.body, 200, { 'content-type': file.type, ...headers });
}
