/**
 * The connection to PostgreSQL: a pool over node-postgres (`pg`), what a location may be and how it
 * is shown (never with its password), and transactions. Every store file runs its statements
 * through a `Queryable`: the pool (one statement, its own transaction) or a client inside
 * `transaction()`.
 */
import pg from 'pg';
import { ReadOnlyStoreError, StoreLocationError } from '../store.ts';

export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/**
 * Runs one statement. Strings are cleaned of NUL characters first (PostgreSQL's text cannot hold
 * one, a page's text may: each becomes U+FFFD, as an HTML parser would show it), and a write
 * refused by a read-only connection is a ReadOnlyStoreError, as with any backend.
 */
export async function run<R extends pg.QueryResultRow = Record<string, unknown>>(q: Queryable, sql: string, params: readonly unknown[] = []): Promise<pg.QueryResult<R>> {
  try {
    return await q.query<R>(sql, params.map(clean));
  } catch (e) {
    if ((e as { code?: string }).code === READ_ONLY_TRANSACTION) throw new ReadOnlyStoreError(`the store was opened read-only: ${(e as Error).message}`);
    throw e;
  }
}

const READ_ONLY_TRANSACTION = '25006';

function clean(v: unknown): unknown {
  if (typeof v === 'string') return v.includes('\0') ? v.replaceAll('\0', '\uFFFD') : v;
  if (Array.isArray(v) && v.some((x) => typeof x === 'string' && x.includes('\0'))) return v.map(clean);
  return v;
}

/** Numbers come back as numbers: ids, times (ms) and counts are bigint columns, all below 2^53. */
const INT8 = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8 && format !== 'binary' ? Number : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser,
};

export type PostgresOptions = {
  /** Connections a process keeps at most (a crawler's commits run concurrently, one per connection). */
  readonly poolSize?: number;
  /** How long connecting may take before the store is called unreachable. */
  readonly connectTimeoutMs?: number;
  /** Every transaction read-only (a search node, an export): the server refuses any write. */
  readonly readOnly?: boolean;
};

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
  if (url.pathname.length <= 1) throw new StoreLocationError(`the store URL ${redactLocation(location)} names no database: add it, e.g. postgres://user@host/trawl`);
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
  // fails — with the cause — if the server is still away.
  pool.on('error', () => undefined);
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
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken: Error | undefined;
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
      client.release(broken);
    }
  }
}

const DEADLOCK_DETECTED = '40P01';
