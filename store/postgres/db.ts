/**
 * The connection to PostgreSQL: a pool over node-postgres (`pg`), what a location may be and how it
 * is shown (never with its password), and transactions. Every store file runs its statements
 * through a `Queryable`: the pool (one statement, its own transaction) or a client inside
 * `transaction()`.
 */
import pg from 'pg';
import { ReadOnlyStoreError, StoreLocationError, type StoreHealth } from '../store.ts';

export type { StoreHealth };

export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/**
 * Runs one statement. Strings are cleaned of NUL characters first (PostgreSQL's text cannot hold
 * one, a page's text may: each becomes U+FFFD, as an HTML parser would show it), and a write
 * refused by a read-only connection is a ReadOnlyStoreError, as with any backend.
 */
export async function run<R extends pg.QueryResultRow = Record<string, unknown>>(
  q: Queryable,
  sql: string,
  params: readonly unknown[] = [],
): Promise<pg.QueryResult<R>> {
  const once = async () => {
    const values = params.map(clean);
    const name = statementName(sql);
    try {
      try {
        return await q.query<R>(name ? { name, text: sql, values } : { text: sql, values });
      } catch (e) {
        // (A statement prepared before another process changed the table it reads, e.g. a newer Trawl's migration.)
        if (!name || !/cached plan must not change result type/.test((e as Error).message)) throw e;
        return await q.query<R>({ text: sql, values });
      }
    } catch (e) {
      if ((e as { code?: string }).code === READ_ONLY_TRANSACTION) throw new ReadOnlyStoreError(`the store was opened read-only: ${(e as Error).message}`);
      throw e;
    }
  };
  // (A statement of its own rides out an outage; one inside a transaction leaves that to transaction().)
  return q instanceof pg.Pool ? outlast(q, once) : once();
}

const READ_ONLY_TRANSACTION = '25006';

/** Statements prepared at most (names are per process; each connection prepares a name once). */
const MAX_PREPARED = 500;
const prepared = new Map<string, string>();

/**
 * The name a statement is prepared under: each connection parses it once and then only binds and
 * runs it — the store's statements are few and run for every page, and the largest (a group
 * commit's) took about as long to parse and plan as to run. (After five runs PostgreSQL may keep a
 * generic plan, made without the values: every statement here reads through an index that fits any
 * values — which the planner sees once the tables' statistics are current: statistics.ts.)
 * Statements are text known in advance (their values are parameters), so a few hundred names cover
 * them; past that, unnamed.
 */
function statementName(sql: string): string | undefined {
  const known = prepared.get(sql);
  if (known || prepared.size >= MAX_PREPARED) return known;
  const name = `trawl_${prepared.size + 1}`;
  prepared.set(sql, name);
  return name;
}

function clean(v: unknown): unknown {
  if (typeof v === 'string') return v.includes('\0') ? v.replaceAll('\0', '\uFFFD') : v;
  if (Array.isArray(v) && v.some((x) => typeof x === 'string' && x.includes('\0'))) return v.map(clean);
  return v;
}

/** Numbers come back as numbers: ids, times (ms) and counts are bigint columns, all below 2^53. */
const INT8 = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 && format !== 'binary' ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export type PostgresOptions = {
  /** Connections a process keeps at most (a crawler's commits run concurrently, one per connection). */
  readonly poolSize?: number;
  /** How long connecting may take before the store is called unreachable. */
  readonly connectTimeoutMs?: number;
  /** Every transaction read-only (a search node, an export): the server refuses any write. */
  readonly readOnly?: boolean;
  /** How long statements wait for a server that stopped answering, retrying with back-off, before they fail (cluster.outageRetry). */
  readonly outageRetryMs?: number;
  /** Told when the store is seen going down, and when it answers again (what a log or a status page may follow). */
  readonly onHealth?: (health: StoreHealth) => void;
};

type Outage = { retryMs: number; downSince?: number; error?: string; onHealth?: (health: StoreHealth) => void };
const outages = new WeakMap<pg.Pool, Outage>();

/** The pool's store as last seen: up, or down since when and why. */
export function healthOf(pool: pg.Pool): StoreHealth {
  const o = outages.get(pool);
  return o?.downSince === undefined ? { up: true } : { up: false, downSince: o.downSince, error: o.error! };
}

/** Errors that say the server is away (refused, reset, shut down, starting up), not that the statement is wrong. */
export function isConnectionError(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  if (
    err.code &&
    (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', '57P01', '57P02', '57P03'].includes(err.code) ||
      err.code.startsWith('08'))
  )
    return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(err.message ?? '');
}

/** Back-off between tries while the server is away: doubling from the first to the last. */
const OUTAGE_BACKOFF_MS = [100, 5000] as const;

/**
 * Runs `fn` (a statement or a whole transaction) until the server answers it: a connection error
 * waits and tries again, with back-off, for up to the pool's outageRetryMs since the outage began —
 * so a crawl pauses through a restart of PostgreSQL or a network cut and resumes without loss (a
 * worker's leases may run out meanwhile: store/leases.ts). Any other error is thrown at once.
 */
export async function outlast<T>(pool: pg.Pool, fn: () => Promise<T>): Promise<T> {
  const o = outages.get(pool);
  for (let wait: number = OUTAGE_BACKOFF_MS[0]; ; wait = Math.min(OUTAGE_BACKOFF_MS[1], wait * 2)) {
    try {
      const result = await fn();
      if (o && o.downSince !== undefined) {
        o.downSince = o.error = undefined;
        o.onHealth?.({ up: true });
      }
      return result;
    } catch (e) {
      if (!o || !isConnectionError(e)) throw e;
      const now = Date.now();
      const wasUp = o.downSince === undefined;
      o.downSince ??= now;
      o.error = connectionCause(e);
      if (wasUp) o.onHealth?.(healthOf(pool));
      if (now - o.downSince >= o.retryMs) throw e;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** True for a location this backend opens: `postgres://` or `postgresql://`. */
export const isPostgresLocation = (location: string): boolean => /^postgres(ql)?:\/\//i.test(location);

/**
 * The location as messages may show it: the URL without its password (in the user part or a
 * `password` parameter). Something that is not a URL is not echoed at all: it may be a password.
 */
export function redactLocation(location: string): string {
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    return '(a store URL that cannot be parsed)';
  }
  url.password = '';
  url.searchParams.delete('password');
  return url.href;
}

/** Checks a location's form; throws StoreLocationError saying what is wrong (without echoing it). */
export function checkLocation(location: string): void {
  let url: URL | undefined;
  try {
    url = new URL(location);
  } catch {
    // (Left undefined: reported below.)
  }
  if (!url || !isPostgresLocation(location) || !url.hostname) {
    throw new StoreLocationError(`the store must be a PostgreSQL URL such as postgres://user@host:5432/trawl, not ${redactLocation(location)}`);
  }
  if (url.pathname.length <= 1)
    throw new StoreLocationError(`the store URL ${redactLocation(location)} names no database: add it, e.g. postgres://user@host/trawl`);
}

/** A pool for `location` (not connected yet: `connect()` tries it). */
export function createPool(location: string, options: PostgresOptions = {}): pg.Pool {
  checkLocation(location);
  const pool = new pg.Pool({
    connectionString: location,
    max: options.poolSize ?? 4,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    idleTimeoutMillis: 30_000,
    types,
    application_name: 'trawl',
    ...(options.readOnly ? { options: '-c default_transaction_read_only=on' } : {}),
  });
  // An idle connection that breaks (a server restart) is dropped by the pool, which emits it here;
  // without a listener that would end the process. The next statement opens a new connection, and
  // waits for the server (outlast) if it is still away.
  pool.on('error', () => undefined);
  outages.set(pool, { retryMs: options.outageRetryMs ?? 0, ...(options.onHealth ? { onHealth: options.onHealth } : {}) });
  return pool;
}

/** Opens one connection to check that the server answers; throws StoreLocationError with the cause in one line. */
export async function connect(pool: pg.Pool, location: string): Promise<void> {
  try {
    const client = await pool.connect();
    client.release();
  } catch (e) {
    throw new StoreLocationError(`cannot reach the PostgreSQL store ${redactLocation(location)}: ${connectionCause(e)}`);
  }
}

/** What went wrong connecting, in words a user can act on (pg's own message otherwise, on one line). */
export function connectionCause(e: unknown): string {
  const err = e as { code?: string; message?: string };
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection refused (is the server running, and listening on that address and port?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'unknown host';
    case 'ETIMEDOUT':
      return 'the connection timed out';
    case '28P01':
    case '28000':
      return `the server refused the credentials (${oneLine(err.message)})`;
    case '3D000':
      return `${oneLine(err.message)} (create it first: createdb)`;
    default:
      return /timeout/i.test(err.message ?? '') ? 'the connection timed out' : oneLine(err.message ?? String(e));
  }
}

const oneLine = (s: string | undefined): string => (s ?? '').replace(/\s+/g, ' ').trim();

/** Times a transaction is tried when the server aborts it for a deadlock with another process's. */
const DEADLOCK_TRIES = 3;

/**
 * Runs `fn` in one transaction on one connection: committed when it resolves, rolled back when it
 * throws. Two workers' transactions can deadlock (each waiting for a row the other locked): the
 * server aborts one, which is run again from the start — `fn` must touch nothing but the database.
 * A connection whose rollback failed is destroyed rather than returned to the pool.
 */
export async function transaction<T>(pool: pg.Pool, fn: (q: pg.PoolClient) => Promise<T>, options: { readonly readWrite?: boolean } = {}): Promise<T> {
  // (Through an outage the whole transaction is run again: a commit whose answer was lost may have
  // been applied, and every writer's transaction can be applied twice — upserts, queues that skip
  // what is seen, a change logged twice that a reader applies as one.)
  return outlast(pool, () => transactionOnce(pool, fn, options));
}

async function transactionOnce<T>(pool: pg.Pool, fn: (q: pg.PoolClient) => Promise<T>, options: { readonly readWrite?: boolean }): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken: Error | undefined;
    // (A connection the server ends while checked out — between two statements of the transaction —
    // says so by an 'error' event, which would end the process unheard: the next statement fails
    // with it instead, and the connection is not given back to the pool.)
    const lost = (e: Error) => (broken = e);
    client.on('error', lost);
    try {
      // (READ WRITE overrides a read-only store's default: a search node's own bookkeeping, changes.ts.)
      await client.query(options.readWrite ? 'BEGIN READ WRITE' : 'BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (e) {
      await client.query('ROLLBACK').catch((rollback: Error) => {
        broken = rollback;
      });
      if ((e as { code?: string }).code !== DEADLOCK_DETECTED || attempt === DEADLOCK_TRIES) throw e;
    } finally {
      client.off('error', lost);
      client.release(broken);
    }
  }
}

const DEADLOCK_DETECTED = '40P01';
