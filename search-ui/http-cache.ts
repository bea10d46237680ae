/**
 * Conditional requests for the JSON API: every answer carries an ETag and `Cache-Control: no-cache`
 * (a client may keep it but asks again, with If-None-Match, and gets a 304 while it is the same).
 *
 * A search's ETag is known before the search runs: it is made of what can change its answer — the
 * index's version (it grows with every page added, replaced or removed), the server's start (a
 * restart may load another index, or rank otherwise) and the request's parameters. So a repeated
 * search is a 304 without being run. It is weak (W/): two answers with one tag are the same
 * results, not the same bytes (`tookMs` differs). Other answers get a strong ETag, a digest of
 * their body.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';

/** Whether an If-None-Match header names `tag` (the weak comparison of RFC 9110 §8.8.3.2). */
export function ifNoneMatch(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = tag.replace(/^W\//, '');
  return (header.match(/(?:W\/)?"[^"]*"/g) ?? []).some((t) => t.replace(/^W\//, '') === bare);
}

/** The ETags of answers made from the index; one per server (`boot` changes at each start). */
export class ResultTags {
  private readonly boot = randomBytes(6).toString('base64url');

  /** The weak ETag of an answer of `kind` (search, suggest) to `params`, at index `version`. */
  tag(version: number, kind: string, ...params: readonly (string | number)[]): string {
    const digest = createHash('sha256')
      .update(JSON.stringify([kind, ...params]))
      .digest('base64url')
      .slice(0, 16);
    return `W/"${this.boot}.${version}.${digest}"`;
  }

  /**
   * The headers of such an answer, and whether the client already holds it (then answer 304 with
   * those headers and run nothing).
   */
  check(c: Context, version: number, kind: string, ...params: readonly (string | number)[]): { fresh: boolean; headers: Record<string, string> } {
    const etag = this.tag(version, kind, ...params);
    return { fresh: ifNoneMatch(c.req.header('if-none-match'), etag), headers: { etag, 'cache-control': 'no-cache' } };
  }
}

/**
 * For the rest of the JSON API: a successful GET answered in JSON without an ETag gets one (a digest
 * of its body) and `no-cache`, and a 304 when the client holds it. Event streams and other types
 * are left alone (their body is never read here).
 */
export function revalidateJson(): MiddlewareHandler {
  return async (c, next) => {
    const conditional = c.req.header('if-none-match');
    await next();
    const res = c.res;
    if (c.req.method !== 'GET' || res.status !== 200 || !/^application\/json\b/i.test(res.headers.get('content-type') ?? '')) return;
    // (An answer never to be reused — a logged search, its own searchId — gets no tag.)
    if (/\bno-store\b/i.test(res.headers.get('cache-control') ?? '')) return;
    if (!res.headers.has('cache-control')) res.headers.set('cache-control', 'no-cache');
    let etag = res.headers.get('etag');
    if (!etag) {
      const body = new Uint8Array(await res.clone().arrayBuffer());
      etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
      res.headers.set('etag', etag);
    }
    if (ifNoneMatch(conditional, etag)) {
      await res.body?.cancel();
      c.res = new Response(null, { status: 304 });
      // (Hono copies the old answer's headers onto the new one: keep those a 304 repeats.)
      for (const k of [...c.res.headers.keys()]) if (!KEPT_ON_304.test(k)) c.res.headers.delete(k);
    }
  };
}

/** What a 304 repeats of the 200 it stands for (RFC 9110 §15.4.5), and the CORS headers. */
const KEPT_ON_304 = /^(cache-control|content-location|date|etag|expires|vary|access-control-.*)$/i;
