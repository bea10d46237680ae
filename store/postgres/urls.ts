/**
 * URL records and per-host queues in PostgreSQL. Unlike SQLite's, nothing is counted in RAM: many
 * processes change the table, so every figure is read from it (through partial indexes where the
 * crawl reads often). A URL is handed out by one UPDATE that picks the host's next row with
 * `FOR UPDATE SKIP LOCKED`: two workers asking at once never get the same URL. That statement also
 * tells whether the URL's page is stored, which the crawler asks next (StoredHints).
 */
import {
  type FailureReport,
  REMOVED_BY_ADMIN,
  URL_STATES,
  type FrontierCounts,
  type NewUrl,
  type QueuedUrl,
  type Target,
  type UrlRecord,
  type UrlState,
} from '../../model/index.ts';
import type { Finish, TakeKind, TakeOptions, Taken, UrlStore } from '../urls.ts';
import { run, transaction, type Queryable } from './db.ts';
import type { StoredHints } from './documents.ts';
import { failureReport } from './failures.ts';
import type pg from 'pg';

const QUEUED_COLUMNS = `id, url, coalesce(fetch_url, url) AS "fetchUrl", host, depth, hops, attempts, etag, last_modified AS "lastModified", hash,
  links_hash AS "linksHash", revisit_ms AS "revisitMs", lastmod, tunnel, topic_score AS "topicScore"`;

/** States a page may be revisited from (revisit_at is NULL in every other). */
const SETTLED = `state NOT IN ('queued', 'fetching', 'failed')`;

/**
 * Where each kind's URLs of a host are ($1 the host, $2 a time: `now` for retries, revisitsDueBy
 * for revisits), and the order they are served in. The kinds are apart: a URL is of one at most.
 */
const NEXT: Record<TakeKind, { readonly where: (time: string) => string; readonly order: string }> = {
  queued: { where: () => `host = $1 AND state = 'queued'`, order: 'depth, id' },
  retry: { where: (t) => `host = $1 AND state = 'failed' AND next_attempt_at <= ${t}`, order: 'next_attempt_at, id' },
  revisit: { where: (t) => `host = $1 AND revisit_at <= ${t} AND ${SETTLED}`, order: 'revisit_at, id' },
};

/** Marks a URL in flight: one attempt more, its revisit schedule cleared (it is being revisited). */
const IN_FLIGHT = `state = 'fetching', attempts = attempts + 1, revisit_at = NULL`;

/**
 * Takes the host's first URL of `kind`, and says whether its page is stored (StoredHints) and
 * whether the host has more of the kinds asked: a second of this kind (the pick locks two), or any
 * of the kinds asked after it (those before it were just found empty). $1 is the host, then a time
 * for each of `kind` and `later` that is not 'queued', in that order.
 */
function takeStatement(kind: TakeKind, later: readonly TakeKind[]): string {
  let n = 1;
  const where = (k: TakeKind) => NEXT[k].where(k === 'queued' ? '' : `$${++n}::bigint`);
  const { order } = NEXT[kind];
  const pick = where(kind);
  const more = later.map((k) => ` OR EXISTS (SELECT 1 FROM urls WHERE ${where(k)})`).join('');
  return `WITH pick AS (SELECT id, ${order.replace(/, id$/, '')} FROM urls WHERE ${pick} ORDER BY ${order} LIMIT 2 FOR UPDATE SKIP LOCKED)
    UPDATE urls SET ${IN_FLIGHT} WHERE id = (SELECT id FROM pick ORDER BY ${order} LIMIT 1)
    RETURNING ${QUEUED_COLUMNS}, EXISTS (SELECT 1 FROM documents d WHERE d.id = urls.id) AS stored, ((SELECT count(*) FROM pick) > 1${more}) AS more`;
}
const takeStatements = new Map<string, string>();

/**
 * takeStatement for up to `max` of the host's queued URLs at once: the pick locks one more than it
 * takes, to tell whether more are left. $1 is the host, then a time for each of `later` that is not
 * 'queued'. (`max` is written in: as a parameter, the planner made a plan for each call — 0.27 ms
 * of planning a call, more than the run — its generic plan costed above the custom one.)
 */
function takeSomeStatement(later: readonly TakeKind[], max: number): string {
  let n = 1;
  const more = later.map((k) => ` OR EXISTS (SELECT 1 FROM urls WHERE ${NEXT[k].where(`$${++n}::bigint`)})`).join('');
  return `WITH pick AS (SELECT id, depth FROM urls WHERE ${NEXT.queued.where('')} ORDER BY depth, id LIMIT ${max + 1} FOR UPDATE SKIP LOCKED)
    UPDATE urls SET ${IN_FLIGHT} WHERE id IN (SELECT id FROM pick ORDER BY depth, id LIMIT ${max})
    RETURNING ${QUEUED_COLUMNS}, EXISTS (SELECT 1 FROM documents d WHERE d.id = urls.id) AS stored, ((SELECT count(*) FROM pick) > ${max}${more}) AS more`;
}

/*
 * How fetches ended, one row of the arrays each (one fetch, or a group commit's: store.ts), and what
 * each learned when it says (meta): every right-hand side reads the row as it was before.
 */
const FINISH =
  `
UPDATE urls u SET state = t.state, reason = t.reason, error = t.error, http_status = t.http_status, fetched_at = t.now, next_attempt_at = t.retry_at,
  attempts = CASE WHEN t.state IN ('failed', 'dead') THEN u.attempts ELSE 0 END,
  revisit_at = t.revisit_at, revisit_ms = coalesce(t.interval_ms, u.revisit_ms),
  content_type = CASE WHEN t.meta THEN t.content_type ELSE u.content_type END,
  charset = CASE WHEN t.meta THEN t.charset ELSE u.charset END,
  lang = CASE WHEN t.meta THEN t.lang ELSE u.lang END,
  size = CASE WHEN t.meta THEN t.size ELSE u.size END,
  changed_at = CASE WHEN t.hash IS NOT NULL AND u.hash IS DISTINCT FROM t.hash THEN t.now ELSE u.changed_at END,
  hash = coalesce(t.hash, u.hash),
  etag = CASE WHEN t.meta THEN t.etag ELSE u.etag END,
  last_modified = CASE WHEN t.meta THEN t.last_modified ELSE u.last_modified END,
  links_hash = coalesce(t.links_hash, u.links_hash),
  topic_score = coalesce(t.topic_score, u.topic_score),
  relevant = coalesce(t.relevant, u.relevant),
  links_cut = CASE WHEN t.meta THEN t.links_cut ELSE u.links_cut END,
  rendered = CASE WHEN t.meta THEN t.rendered ELSE u.rendered END
FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::int[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[], $10::boolean[],
  $11::text[], $12::text[], $13::text[], $14::bigint[], $15::text[], $16::text[], $17::text[], $18::text[], ` +
  `$19::double precision[], $20::boolean[], $21::int[], $22::text[])
  AS t(id, state, reason, error, http_status, now, retry_at, revisit_at, interval_ms, meta,
    content_type, charset, lang, size, hash, etag, last_modified, links_hash, topic_score, relevant, links_cut, rendered)
WHERE u.id = t.id`;

const REQUEUE = `UPDATE urls SET state = 'queued', attempts = 0, next_attempt_at = NULL, revisit_at = NULL WHERE state NOT IN ('queued', 'fetching')`;
const NOT_REMOVED = `reason IS DISTINCT FROM '${REMOVED_BY_ADMIN}'`;
const EXCLUDE =
  `UPDATE urls SET state = 'excluded', reason = '${REMOVED_BY_ADMIN}', ` +
  'error = NULL, next_attempt_at = NULL, revisit_at = NULL ' +
  "WHERE state != 'fetching'";

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
  constructor(
    private readonly pool: pg.Pool,
    /** Whether the pages of URLs taken are stored, for the document store's has(). */
    private readonly stored: StoredHints,
  ) {}

  /** One statement a kind, in the order asked, until one gives a URL (see takeStatement). */
  async take(host: string, { kinds, now, revisitsDueBy }: TakeOptions): Promise<Taken | undefined> {
    const asked = kinds.filter((k) => k !== 'revisit' || revisitsDueBy !== undefined);
    const timeOf = (k: TakeKind) => (k === 'revisit' ? revisitsDueBy : now);
    for (const [i, kind] of asked.entries()) {
      const later = asked.slice(i + 1);
      const key = `${kind}:${later.join()}`;
      const sql = takeStatements.get(key) ?? takeStatements.set(key, takeStatement(kind, later)).get(key)!;
      // (Prepared: each kind's rows are read through its partial index, whatever the host and the
      // time — the plan made without them is the one made for them (EXPLAIN, bench/scale), and
      // planning it each time cost twice its run, 0.24 against 0.11 ms. Plans made while the
      // tables were small are made again as they grow: statistics.ts.)
      const times = [kind, ...later].filter((k) => k !== 'queued').map(timeOf);
      const row = (await run<QueuedUrl & { stored: boolean; more: boolean }>(this.pool, sql, [host, ...times])).rows[0];
      if (!row) continue;
      const { stored, more, ...q } = row;
      this.stored.learn(q.id, stored);
      return { ...q, revisit: kind === 'revisit', kind, last: !more };
    }
    return undefined;
  }

  /**
   * Up to `max` of the host's queued URLs in one statement, when queued URLs come first in `kinds`
   * (else, or when none is queued, take() of the kinds after): a worker takes ahead what its next
   * requests to the host will fetch (crawler/frontier/frontier.ts), saving a round trip each.
   */
  async takeSome(host: string, options: TakeOptions, max: number): Promise<Taken[]> {
    const { kinds, now, revisitsDueBy } = options;
    const asked = kinds.filter((k) => k !== 'revisit' || revisitsDueBy !== undefined);
    if (asked[0] !== 'queued' || max <= 1) {
      const one = await this.take(host, options);
      return one ? [one] : [];
    }
    const later = asked.slice(1);
    const count = Math.floor(max);
    const key = `some${count}:${later.join()}`;
    const sql = takeStatements.get(key) ?? takeStatements.set(key, takeSomeStatement(later, count)).get(key)!;
    const times = later.filter((k) => k !== 'queued').map((k) => (k === 'revisit' ? revisitsDueBy : now));
    const { rows } = await run<QueuedUrl & { stored: boolean; more: boolean }>(this.pool, sql, [host, ...times]);
    if (!rows.length) {
      const one = later.length ? await this.take(host, { ...options, kinds: later }) : undefined;
      return one ? [one] : [];
    }
    // (RETURNING keeps no order: the queue's, breadth-first.)
    rows.sort((a, b) => a.depth - b.depth || a.id - b.id);
    return rows.map(({ stored, more, ...q }, i) => {
      this.stored.learn(q.id, stored);
      return { ...q, revisit: false, kind: 'queued' as const, last: i === rows.length - 1 && !more };
    });
  }

  async claim(url: NewUrl, now: number): Promise<QueuedUrl> {
    return transaction(this.pool, async (q) => {
      const fetchUrl = url.fetchUrl && url.fetchUrl !== url.url ? url.fetchUrl : null;
      const added = await run(
        q,
        'INSERT INTO urls (url, fetch_url, host, depth, state, hops, discovered_at, tunnel) ' +
          `VALUES ($1, $2, $3, $4, 'queued', $5, $6, $7) ON CONFLICT (url) DO NOTHING`,
        [url.url, fetchUrl, new URL(url.url).host, url.depth, url.hops ?? 0, now, url.tunnel ?? 0],
      );
      await run(q, 'INSERT INTO hosts (host, urls) VALUES ($1, $2) ON CONFLICT (host) DO UPDATE SET urls = hosts.urls + excluded.urls', [
        new URL(url.url).host,
        added.rowCount ?? 0,
      ]);
      return (await run<QueuedUrl>(q, `UPDATE urls SET ${IN_FLIGHT} WHERE url = $1 RETURNING ${QUEUED_COLUMNS}`, [url.url])).rows[0]!;
    });
  }

  async finish(id: number, finish: Finish, now: number): Promise<void> {
    await finishUrls(this.pool, [{ id, finish, now }]);
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
    const sql =
      'SELECT count(*) FILTER (WHERE relevant) AS relevant, count(*) FILTER (WHERE NOT relevant) AS "notRelevant" FROM urls WHERE relevant IS NOT NULL';
    return (await run<{ relevant: number; notRelevant: number }>(this.pool, sql)).rows[0]!;
  }

  async failures(limit: number): Promise<FailureReport> {
    return failureReport(this.pool, limit);
  }

  async linksCut(): Promise<{ pages: number; links: number }> {
    return (
      await run<{ pages: number; links: number }>(
        this.pool,
        'SELECT count(*) AS pages, coalesce(sum(links_cut), 0)::bigint AS links FROM urls WHERE links_cut IS NOT NULL',
      )
    ).rows[0]!;
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
      const r =
        'url' in target
          ? await run(q, `${REQUEUE} AND url = $1`, [target.url])
          : 'host' in target
            ? await run(q, `${REQUEUE} AND host = $1 AND ${NOT_REMOVED}`, [target.host])
            : await run(q, `${REQUEUE} AND ${NOT_REMOVED}`);
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

/** A fetch's end, as `finishUrls` writes it. */
export type FinishRow = { readonly id: number; readonly finish: Finish; readonly now: number };

/**
 * Records how fetches ended, and what each learned, in one statement (alone, or in the caller's
 * transaction). Ids must differ; rows are updated in id order, as every writer does.
 */
export async function finishUrls(q: Queryable, rows: readonly FinishRow[]): Promise<void> {
  if (!rows.length) return;
  const sorted = [...rows].sort((a, b) => a.id - b.id);
  const columns: unknown[][] = Array.from({ length: 22 }, () => []);
  for (const { id, finish, now } of sorted) for (const [i, v] of finishColumns(id, finish, now).entries()) columns[i]!.push(v);
  await run(q, FINISH, columns);
}

function finishColumns(id: number, { outcome, revisit }: Finish, now: number): unknown[] {
  const reason = outcome.kind === 'redirected' ? outcome.to : 'reason' in outcome ? outcome.reason : 'note' in outcome ? (outcome.note ?? null) : null;
  const meta = 'meta' in outcome ? outcome.meta : undefined;
  return [
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
    meta !== undefined,
    meta?.contentType ?? null,
    meta?.charset ?? null,
    meta?.lang ?? null,
    meta?.size ?? null,
    meta?.hash ?? null,
    meta?.etag ?? null,
    meta?.lastModified ?? null,
    meta?.linksHash ?? null,
    meta?.topic?.score ?? null,
    meta?.topic ? meta.topic.relevant : null,
    meta?.linksCut ? meta.linksCut : null,
    meta?.rendered ?? null,
  ];
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
