/**
 * The failed URLs told apart, in SQLite (UrlStore.failures): the sites' broken links — reached from
 * a link, answered 404/410 — with the page each was found on, and the crawl's own failures. Read
 * through the index on `state`: only failed and dead rows are looked at.
 */
import type { FailedUrl, FailureReport } from '../../model/index.ts';
import { BROKEN_LINK_STATUSES } from '../urls.ts';
import type { Db } from './db.ts';

const FAILED = `u.state IN ('failed', 'dead')`;
// (coalesce: a failure without an HTTP status — a timeout, a refused connection — is never a broken link.)
const BROKEN = `u.depth > 0 AND coalesce(u.http_status, 0) IN (${BROKEN_LINK_STATUSES.join(', ')})`;

export class SqliteFailures {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      count: db.prepare(`SELECT count(*) FILTER (WHERE ${BROKEN}) AS broken, count(*) FILTER (WHERE NOT (${BROKEN})) AS others FROM urls u WHERE ${FAILED}`),
      broken: db.prepare(`SELECT u.url, u.http_status AS status, f.url AS foundOn,
          (SELECT coalesce(sum(a.links), 0) FROM anchors a WHERE a.target = u.url) AS links
        FROM urls u LEFT JOIN urls f ON f.id = u.found_on WHERE ${FAILED} AND ${BROKEN} ORDER BY u.id LIMIT ?`),
      others: db.prepare(`SELECT u.url, u.state, u.error, u.reason, u.http_status AS httpStatus, u.attempts
        FROM urls u WHERE ${FAILED} AND NOT (${BROKEN}) ORDER BY u.id LIMIT ?`),
    };
  }

  report(limit: number): FailureReport {
    const n = this.stmts.count.get() as { broken: number; others: number };
    return {
      brokenLinks: { count: n.broken, shown: this.stmts.broken.all(limit) as FailureReport['brokenLinks']['shown'] },
      fetchFailures: { count: n.others, shown: this.stmts.others.all(limit) as FailedUrl[] },
    };
  }
}
