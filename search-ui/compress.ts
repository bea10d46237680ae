/**
 * Compressed answers, Brotli or gzip, when the client says it takes them (Accept-Encoding).
 * hono/compress would do gzip only (CompressionStream has no Brotli in Node 20), so node:zlib
 * does it here. Only text-like bodies of 1 KB or more are compressed, and never an event stream:
 * its body does not end, and each event must reach the browser when it is sent.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { MiddlewareHandler } from 'hono';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Smaller bodies gain less than the bytes of the headers. */
const THRESHOLD = 1024;
const COMPRESSIBLE = /^(text\/(?!event-stream)|application\/(json|javascript|xml|[\w.+-]+\+(json|xml))|image\/svg\+xml)/i;
/** Brotli's quality 5: close to its best on these small bodies, at the speed of gzip -6. */
const BROTLI_QUALITY = 5;

export type Encoding = 'br' | 'gzip';

/** The encoding to answer with: the client's most preferred of Brotli and gzip (Brotli on a tie). */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  if (!acceptEncoding) return undefined;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const weight = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((w) => w !== undefined);
    if (name) q.set(name, weight === undefined ? 1 : Number(weight) || 0);
  }
  const of = (e: string) => q.get(e) ?? q.get('*') ?? 0;
  const [br, gz] = [of('br'), of('gzip')];
  if (br <= 0 && gz <= 0) return undefined;
  return br >= gz ? 'br' : 'gzip';
}

export function compressResponses(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const res = c.res;
    const type = res.headers.get('content-type') ?? '';
    if (!res.body || c.req.method === 'HEAD' || res.status < 200 || res.status === 204 || res.status === 206 || !COMPRESSIBLE.test(type)) return;
    if (res.headers.has('content-encoding') || /\bno-transform\b/i.test(res.headers.get('cache-control') ?? '')) return;
    // Whether compressed or not, the answer depended on Accept-Encoding: caches must know.
    const vary = res.headers.get('vary');
    if (!vary || !/\baccept-encoding\b/i.test(vary)) res.headers.set('vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
    const encoding = chooseEncoding(c.req.header('accept-encoding'));
    const length = Number(res.headers.get('content-length') ?? NaN);
    if (!encoding || length < THRESHOLD) return;
    const body = Buffer.from(await res.arrayBuffer());
    if (body.length < THRESHOLD) {
      c.res = new Response(body, res);
      return;
    }
    const out = await encode(encoding, body);
    // (Hono copies the old answer's headers onto the new one; the changed ones are set after.)
    c.res = new Response(out, res);
    c.res.headers.set('content-encoding', encoding);
    c.res.headers.set('content-length', String(out.length));
    // Another encoding is another representation: its ETag can no longer be a strong one.
    const etag = c.res.headers.get('etag');
    if (etag && !etag.startsWith('W/')) c.res.headers.set('etag', `W/${etag}`);
  };
}

function encode(encoding: Encoding, body: Buffer): Promise<Buffer> {
  if (encoding === 'gzip') return gzipped(body);
  return brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } });
}
