/**
 * The seen-set in PostgreSQL: a batch of links queued unless seen, its rejections counted, in ONE
 * statement — one round trip for a page's hundred links, whatever the number of workers. The links
 * travel as arrays (unnest); the UNIQUE url decides which are new (`ON CONFLICT DO NOTHING`, so two
 * workers queuing the same new URL at once queue it once).
 */
import { parseDate } from '../../lib/date.ts';
import type { NewUrl } from '../../model/index.ts';
import type { EnqueueBatch, EnqueueResult } from '../store.ts';
import { run, type Queryable } from './db.ts';

/** Rows of `rejections` per reason: a connection writes its own (migrations.ts says why). */
export const REJECTION_SHARDS = 64;

/*
 * - `input`: the links, with their position in the batch.
 * - `added`: the new ones, inserted, each with the page it was found on (`found_on`: the URL record
 *   whose commit queued it; NULL outside a fetch's commit). Only URLs not in the table yet are offered (a repeated
 *   navigation link then costs an index probe, not an insert attempt, and takes no id); sorted by
 *   URL, so that two workers inserting overlapping batches lock in the same order and never
 *   deadlock; the first of a URL given twice wins.
 * - `hosted`: the hosts of new URLs, known from now on to host leases (leases.ts), and their count
 *   of URLs (limits.maxPagesPerHost, read by every worker) — in host order, as the URLs are.
 * - `dated`: a sitemap's <lastmod> kept on a known URL; a date after its last fetch makes its
 *   revisit due since then (a new URL gets its <lastmod> on insert).
 * - `counted`: the rejections before the seen-set, and the seen-set's own as 'already-seen'.
 */
const ENQUEUE = `
WITH input AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::int[], $6::int[], $7::text[], $8::bigint[], $9::bigint[], $12::bigint[])
    WITH ORDINALITY AS t(url, fetch_url, host, depth, hops, tunnel, lastmod, lastmod_at, discovered_at, found_on, ord)
), added AS (
  INSERT INTO urls (url, fetch_url, host, depth, state, hops, discovered_at, tunnel, lastmod, found_on)
  SELECT DISTINCT ON (i.url) i.url, i.fetch_url, i.host, i.depth, 'queued', i.hops, i.discovered_at, i.tunnel, i.lastmod, i.found_on
  FROM input i WHERE NOT EXISTS (SELECT 1 FROM urls u WHERE u.url = i.url)
  ORDER BY i.url, i.ord
  ON CONFLICT (url) DO NOTHING
  RETURNING url, host
), hosted AS (
  INSERT INTO hosts (host, urls) SELECT a.host, count(*) FROM added a GROUP BY a.host ORDER BY 1
  ON CONFLICT (host) DO UPDATE SET urls = hosts.urls + excluded.urls
), dated AS (
  UPDATE urls u SET lastmod = d.lastmod,
    revisit_at = CASE WHEN u.revisit_at IS NOT NULL AND d.lastmod_at IS NOT NULL AND d.lastmod_at > u.fetched_at
      THEN least(u.revisit_at, d.lastmod_at) ELSE u.revisit_at END
  FROM (SELECT DISTINCT ON (url) url, lastmod, lastmod_at FROM input WHERE lastmod IS NOT NULL ORDER BY url, ord DESC) d
  WHERE u.url = d.url
), counted AS (
  INSERT INTO rejections (reason, shard, n)
  SELECT reason, pg_backend_pid() % ${REJECTION_SHARDS}, sum(n)::bigint FROM (
    SELECT * FROM unnest($10::text[], $11::bigint[]) AS r(reason, n)
    UNION ALL SELECT 'already-seen', (SELECT count(*) FROM input) - (SELECT count(*) FROM added)
  ) r GROUP BY reason HAVING sum(n) > 0
  ON CONFLICT (reason, shard) DO UPDATE SET n = rejections.n + excluded.n
)
SELECT url FROM added`;

const NOTHING: EnqueueResult = { added: [], hosts: new Set() };

/** Queues the new URLs of a batch and counts its rejections: one statement (atomic by itself, or part of the caller's transaction). */
export async function enqueueBatch(q: Queryable, batch: EnqueueBatch, now: number): Promise<EnqueueResult> {
  return (await enqueueBatches(q, [{ batch, now }]))[0]!;
}

/**
 * Queues the links of several batches (the pages of a group commit: store.ts) in ONE statement, as
 * if one after the other: a URL that two of them give is new to the first only, and inserted as the
 * first gives it (with its page, `foundOn`). Returns what each batch added, in the order given.
 */
export async function enqueueBatches(
  q: Queryable,
  batches: readonly { readonly batch: EnqueueBatch; readonly now: number; readonly foundOn?: number }[],
): Promise<EnqueueResult[]> {
  const rejected = new Map<string, number>();
  for (const { batch } of batches) for (const [reason, n] of batch.rejected ?? []) if (n > 0) rejected.set(reason, (rejected.get(reason) ?? 0) + n);
  const urls = batches.flatMap(({ batch }) => batch.urls);
  if (!urls.length && !rejected.size) return batches.map(() => NOTHING);
  const hosts = urls.map((u) => new URL(u.url).host);
  const discovered = batches.flatMap(({ batch, now }) => batch.urls.map(() => now));
  const foundOn = batches.flatMap(({ batch, foundOn }) => batch.urls.map(() => foundOn ?? null));
  const { rows } = await run<{ url: string }>(q, ENQUEUE, [
    urls.map((u) => u.url),
    urls.map((u) => (u.fetchUrl && u.fetchUrl !== u.url ? u.fetchUrl : null)),
    hosts,
    urls.map((u) => u.depth),
    urls.map((u) => u.hops ?? 0),
    urls.map((u) => u.tunnel ?? 0),
    urls.map((u) => (u.lastmod ? u.lastmod.slice(0, 40) : null)),
    urls.map((u) => (u.lastmod ? (parseDate(u.lastmod) ?? null) : null)),
    discovered,
    [...rejected.keys()],
    [...rejected.values()],
    foundOn,
  ]);
  const isNew = new Set(rows.map((r) => r.url));
  let at = 0;
  return batches.map(({ batch }) => {
    const mine = hosts.slice(at, (at += batch.urls.length));
    return inOrderGiven(batch.urls, mine, isNew);
  });
}

/** The new URLs in the order given (the statement returns them in any order), each once (taken from `isNew`), and their hosts. */
function inOrderGiven(urls: readonly NewUrl[], hosts: readonly string[], isNew: Set<string>): EnqueueResult {
  const added: string[] = [];
  const addedHosts = new Set<string>();
  urls.forEach((u, i) => {
    if (!isNew.delete(u.url)) return;
    added.push(u.url);
    addedHosts.add(hosts[i]!);
  });
  return { added, hosts: addedHosts };
}
