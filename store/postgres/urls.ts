/**
 * URL records and per-host queues in PostgreSQL. Unlike SQLite's, nothing is counted in RAM: many
 * processes change the table, so every figure is read from it (through partial indexes where the
 * crawl reads often). A URL is handed out by one UPDATE that picks the host's next row with
 * `FOR UPDATE SKIP LOCKED`: two workers asking at once never get the same URL.
 */
import { REMOVED_BY_ADMIN, URL_STATES, type FrontierCounts, type NewUrl, type QueuedUrl, type Target, type UrlRecord, type UrlState } from '../../model/index.ts';
import type { Finish, TakeKind, TakeOptions, UrlStore } from '../urls.ts';
import { run, transaction, type Queryable } from './db.ts';
import type pg from 'pg';

const QUEUED_COLUMNS = `id, url, coalesce(fetch_url, url) AS "fetchUrl", host, depth, hops, attempts, etag, last_modified AS "lastModified", hash,
  links_hash AS "linksHash", revisit_ms AS "revisitMs", lastmod, tunnel, topic_score AS "topicScore"`;

/** States a page may be revisited from (revisit_at is NULL in every other). */
const SETTLED = `state NOT IN ('queued', 'fetching', 'failed')`;

/** Where each kind's next URL of a host is, in the order it is served. */
const NEXT: Record<TakeKind, string> = {
  queued: `host = $1 AND state = 'queued' ORDER BY depth, id`,
  retry: `host = $1 AND state = 'failed' AND next_attempt_at <= $2 ORDER BY next_attempt_at, id`,
  revisit: `host = $1 AND revisit_at <= $2 AND ${SETTLED} ORDER BY revisit_at, id`,
};

/** Marks a URL in flight: one attempt more, its revisit schedule cleared (it is being revisited). */
const IN_FLIGHT = `state = 'fetching', attempts = attempts + 1, revisit_at = NULL`;

const takeSql = (kind: TakeKind) => `UPDATE urls SET ${IN_FLIGHT} WHERE id = (SELECT id FROM urls WHERE ${NEXT[kind]} LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING ${QUEUED_COLUMNS}`;

/** How a fetch ended ($1 id, $2 state, $3 reason, $4 error, $5 status, $6 now, $7 retry at, $8 revisit at, $9 interval). */
const FINISH = `state = $2::text, reason = $3::text, error = $4::text, http_status = $5::int, fetched_at = $6::bigint, next_attempt_at = $7::bigint,
  attempts = CASE WHEN $2::text IN ('failed', 'dead') THEN attempts ELSE 0 END,
  revisit_at = $8::bigint, revisit_ms = coalesce($9::bigint, revisit_ms)`;

/** What the fetch learned ($10…$21); every right-hand side reads the row as it was before. */
const META = `content_type = $10::text, charset = $11::text, lang = $12::text, size = $13::bigint,
  changed_at = CASE WHEN $14::text IS NOT NULL AND hash IS DISTINCT FROM $14::text THEN $6::bigint ELSE changed_at END,
  hash = coalesce($14::text, hash), etag = $15::text, last_modified = $16::text, links_hash = coalesce($17::text, links_hash),
  topic_score = coalesce($18::double precision, topic_score), relevant = coalesce($19::boolean, relevant), links_cut = $20::int, rendered = $21::text`;

const REQUEUE = `UPDATE urls SET state = 'queued', attempts = 0, next_attempt_at = NULL, revisit_at = NULL WHERE state NOT IN ('queued', 'fetching')`;
const NOT_REMOVED = `reason IS DISTINCT FROM '${REMOVED_BY_ADMIN}'`;
const EXCLUDE = `UPDATE urls SET state = 'excluded', reason = '${REMOVED_BY_ADMIN}', error = NULL, next_attempt_at = NULL, revisit_at = NULL WHERE state != 'fetching'`;

type Row = {
  id: number;
  url: string;
  fetch_url: string | null;
  host: string;
  depth: number;
  state: UrlState;
  reason: string | null;
  error: string | null;
  http_status: number | null;
  attempts: number;
  next_attempt_at: number | null;
  discovered_at: number;
  fetched_at: number | null;
  changed_at: number | null;
  content_type: string | null;
  charset: string | null;
  lang: string | null;
  size: number | null;
  hash: string | null;
  etag: string | null;
  last_modified: string | null;
  lastmod: string | null;
  revisit_at: number | null;
  revisit_ms: number | null;
  tunnel: number;
  topic_score: number | null;
  relevant: boolean | null;
  links_cut: number | null;
  rendered: string | null;
};

export class PgUrlStore implements UrlStore {
  constructor(private readonly pool: pg.Pool) {}

  async take(host: string, { kinds, now, revisitsDueBy }: TakeOptions): Promise<(QueuedUrl & { readonly kind: TakeKind }) | undefined> {
    for (const kind of kinds) {
      if (kind === 'revisit' && revisitsDueBy === undefined) continue;
      const { rows } = await run<QueuedUrl>(this.pool, takeSql(kind), kind === 'queued' ? [host] : [host, kind === 'retry' ? now : revisitsDueBy]);
      if (rows[0]) return { ...rows[0], revisit: kind === 'revisit', kind };
    }
    return undefined;
  }

  async claim(url: NewUrl, now: number): Promise<QueuedUrl> {
    return transaction(this.pool, async (q) => {
      const fetchUrl = url.fetchUrl && url.fetchUrl !== url.url ? url.fetchUrl : null;
      const added = await run(q, `INSERT INTO urls (url, fetch_url, host, depth, state, hops, discovered_at, tunnel) VALUES ($1, $2, $3, $4, 'queued', $5, $6, $7) ON CONFLICT (url) DO NOTHING`, [
        url.url,
        fetchUrl,
        new URL(url.url).host,
        url.depth,
        url.hops ?? 0,
        now,
        url.tunnel ?? 0,
      ]);
      await run(q, 'INSERT INTO hosts (host, urls) VALUES ($1, $2) ON CONFLICT (host) DO UPDATE SET urls = hosts.urls + excluded.urls', [new URL(url.url).host, added.rowCount ?? 0]);
      return (await run<QueuedUrl>(q, `UPDATE urls SET ${IN_FLIGHT} WHERE url = $1 RETURNING ${QUEUED_COLUMNS}`, [url.url])).rows[0]!;
    });
  }

  async finish(id: number, finish: Finish, now: number): Promise<void> {
    await finishUrl(this.pool, id, finish, now);
  }

  async putBack(id: number): Promise<void> {
    await run(this.pool, `UPDATE urls SET state = 'queued', attempts = greatest(attempts - 1, 0) WHERE id = $1 AND state = 'fetching'`, [id]);
  }

  /**
   * URLs left in flight are queued again — but not on a host under a lease (leases.ts): another
   * worker may be fetching them; they come back when that lease runs out.
   */
  async recoverInFlight(): Promise<number> {
    const sql = `UPDATE urls u SET state = 'queued', attempts = greatest(attempts - 1, 0)
      WHERE state = 'fetching' AND NOT EXISTS (SELECT 1 FROM hosts h WHERE h.host = u.host AND h.worker IS NOT NULL)`;
    return (await run(this.pool, sql)).rowCount ?? 0;
  }

  async record(url: string): Promise<UrlRecord | undefined> {
    const row = (await run<Row>(this.pool, 'SELECT * FROM urls WHERE url = $1', [url])).rows[0];
    return row && toRecord(row);
  }

  async idsOf(urls: readonly string[]): Promise<Map<string, number>> {
    const { rows } = await run<{ url: string; id: number }>(this.pool, 'SELECT url, id FROM urls WHERE url = ANY($1::text[])', [urls]);
    return new Map(rows.map((r) => [r.url, r.id]));
  }

  async counts(): Promise<FrontierCounts> {
    const counts = Object.fromEntries(URL_STATES.map((s) => [s, 0])) as FrontierCounts;
    const { rows } = await run<{ state: UrlState; n: number }>(this.pool, 'SELECT state, count(*) AS n FROM urls GROUP BY state');
    for (const { state, n } of rows) counts[state] = n;
    return counts;
  }

  async pagesFetched(): Promise<number> {
    return (await run<{ n: number }>(this.pool, `SELECT count(*) AS n FROM urls WHERE state IN ('indexed', 'fetched', 'not-modified')`)).rows[0]!.n;
  }

  async topicVerdicts(): Promise<{ relevant: number; notRelevant: number }> {
    const sql = 'SELECT count(*) FILTER (WHERE relevant) AS relevant, count(*) FILTER (WHERE NOT relevant) AS "notRelevant" FROM urls WHERE relevant IS NOT NULL';
    return (await run<{ relevant: number; notRelevant: number }>(this.pool, sql)).rows[0]!;
  }

  async linksCut(): Promise<{ pages: number; links: number }> {
    return (await run<{ pages: number; links: number }>(this.pool, 'SELECT count(*) AS pages, coalesce(sum(links_cut), 0)::bigint AS links FROM urls WHERE links_cut IS NOT NULL')).rows[0]!;
  }

  async nextRetryAt(): Promise<number | undefined> {
    return (await run<{ at: number | null }>(this.pool, `SELECT min(next_attempt_at) AS at FROM urls WHERE state = 'failed'`)).rows[0]!.at ?? undefined;
  }

  async nextRevisitAt(): Promise<number | undefined> {
    return (await run<{ at: number | null }>(this.pool, 'SELECT min(revisit_at) AS at FROM urls WHERE revisit_at IS NOT NULL')).rows[0]!.at ?? undefined;
  }

  async dueRevisits(now: number): Promise<number> {
    return (await run<{ n: number }>(this.pool, 'SELECT count(*) AS n FROM urls WHERE revisit_at <= $1', [now])).rows[0]!.n;
  }

  async sitemapsDue(by: number): Promise<void> {
    await run(this.pool, `UPDATE urls SET revisit_at = least(revisit_at, $1) WHERE state = 'fetched' AND revisit_at IS NOT NULL`, [by]);
  }

  async requeue(target: Target): Promise<{ count: number; hosts: string[] }> {
    return transaction(this.pool, async (q) => {
      const r = 'url' in target ? await run(q, `${REQUEUE} AND url = $1`, [target.url]) : 'host' in target ? await run(q, `${REQUEUE} AND host = $1 AND ${NOT_REMOVED}`, [target.host]) : await run(q, `${REQUEUE} AND ${NOT_REMOVED}`);
      const count = r.rowCount ?? 0;
      const hosts = count ? (await run<{ host: string }>(q, `SELECT DISTINCT host FROM urls WHERE state = 'queued'`)).rows.map((x) => x.host) : [];
      return { count, hosts };
    });
  }

  async exclude(target: { readonly url: string } | { readonly host: string }): Promise<number[]> {
    return transaction(this.pool, async (q) => {
      const [column, value] = 'url' in target ? ['url', target.url] : ['host', target.host];
      const ids = (await run<{ id: number }>(q, `SELECT id FROM urls WHERE ${column} = $1 ORDER BY id`, [value])).rows.map((r) => r.id);
      await run(q, `${EXCLUDE} AND ${column} = $1`, [value]);
      return ids;
    });
  }
}

/** Records how a fetch ended, and what it learned, in one statement (alone, or in the caller's transaction). */
export async function finishUrl(q: Queryable, id: number, { outcome, revisit }: Finish, now: number): Promise<void> {
  const reason = outcome.kind === 'redirected' ? outcome.to : 'reason' in outcome ? outcome.reason : 'note' in outcome ? (outcome.note ?? null) : null;
  const params: unknown[] = [
    id,
    outcome.kind,
    reason,
    'error' in outcome ? outcome.error : null,
    'status' in outcome ? (outcome.status ?? null) : null,
    now,
    outcome.kind === 'failed' ? outcome.retryAt : null,
    // A URL waiting for its retry is not also waiting for a revisit.
    revisit && outcome.kind !== 'failed' ? revisit.at : null,
    revisit?.intervalMs ?? null,
  ];
  const meta = 'meta' in outcome ? outcome.meta : undefined;
  if (meta) {
    params.push(
      meta.contentType ?? null,
      meta.charset ?? null,
      meta.lang ?? null,
      meta.size ?? null,
      meta.hash ?? null,
      meta.etag ?? null,
      meta.lastModified ?? null,
      meta.linksHash ?? null,
      meta.topic?.score ?? null,
      meta.topic ? meta.topic.relevant : null,
      meta.linksCut ? meta.linksCut : null,
      meta.rendered ?? null,
    );
  }
  await run(q, `UPDATE urls SET ${FINISH}${meta ? `, ${META}` : ''} WHERE id = $1`, params);
}

function toRecord(r: Row): UrlRecord {
  return {
    id: r.id,
    url: r.url,
    fetchUrl: r.fetch_url ?? r.url,
    host: r.host,
    depth: r.depth,
    state: r.state,
    reason: r.reason,
    error: r.error,
    httpStatus: r.http_status,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    discoveredAt: r.discovered_at,
    fetchedAt: r.fetched_at,
    changedAt: r.changed_at,
    contentType: r.content_type,
    charset: r.charset,
    lang: r.lang,
    size: r.size,
    hash: r.hash,
    etag: r.etag,
    lastModified: r.last_modified,
    lastmod: r.lastmod,
    revisitAt: r.revisit_at,
    revisitMs: r.revisit_ms,
    tunnel: r.tunnel,
    topicScore: r.topic_score,
    relevant: r.relevant,
    linksCut: r.links_cut,
    rendered: r.rendered,
  };
}
