/**
 * The failed URLs told apart, in PostgreSQL (UrlStore.failures): the sites' broken links — reached
 * from a link, answered 404/410 — with the page each was found on, and the crawl's own failures.
 * Read through the index on `state`, as SQLite's (store/sqlite/failures.ts): only failed and dead rows.
 */
import type pg from 'pg';
import type { BrokenLink, FailedUrl, FailureReport } from '../../model/index.ts';
import { BROKEN_LINK_STATUSES } from '../urls.ts';
import { run } from './db.ts';

const FAILED = `u.state IN ('failed', 'dead')`;
// (coalesce: a failure without an HTTP status — a timeout, a refused connection — is never a broken link.)
const BROKEN = `u.depth > 0 AND coalesce(u.http_status, 0) IN (${BROKEN_LINK_STATUSES.join(', ')})`;

const COUNT = `SELECT count(*) FILTER (WHERE ${BROKEN}) AS broken, count(*) FILTER (WHERE NOT (${BROKEN})) AS others FROM urls u WHERE ${FAILED}`;
const BROKEN_LINKS = `SELECT u.url, u.http_status AS status, f.url AS "foundOn",
    (SELECT coalesce(sum(a.links), 0)::bigint FROM anchors a WHERE a.target = u.url) AS links
  FROM urls u LEFT JOIN urls f ON f.id = u.found_on WHERE ${FAILED} AND ${BROKEN} ORDER BY u.id LIMIT $1`;
const OTHERS = `SELECT u.url, u.state, u.error, u.reason, u.http_status AS "httpStatus", u.attempts
  FROM urls u WHERE ${FAILED} AND NOT (${BROKEN}) ORDER BY u.id LIMIT $1`;

/** The failures report: three statements, run one after the other on the pool (a status read, not a transaction). */
export async function failureReport(pool: pg.Pool, limit: number): Promise<FailureReport> {
  const n = (await run<{ broken: number; others: number }>(pool, COUNT)).rows[0]!;
  const broken = (await run<BrokenLink>(pool, BROKEN_LINKS, [limit])).rows;
  const others = (await run<FailedUrl>(pool, OTHERS, [limit])).rows;
  return { brokenLinks: { count: n.broken, shown: broken }, fetchFailures: { count: n.others, shown: others } };
}
