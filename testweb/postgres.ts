/**
 * A throwaway PostgreSQL 15 for the tests (issue 22: a real server, never a mock), from Debian's
 * `postgresql-15` (the Makefile installs it): `initdb` into a temp directory, `pg_ctl start` on a
 * free loopback port with trust authentication and its unix socket in that directory, stopped and
 * removed by `stop()` — and by a watchdog if the test process dies first (a crash, a timeout's
 * kill), so that no server outlives its tests.
 *
 * PostgreSQL refuses to run as root: when the tests run as root, every server command runs as the
 * `postgres` user (`runuser`), in a directory that user owns.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Signal } from './wait.ts';

const run = promisify(execFile);

/** Where Debian puts PostgreSQL 15's programs. */
export const PG_BIN = '/usr/lib/postgresql/15/bin';

export type ThrowawayPostgres = {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`: the superuser, no password (trust on loopback). */
  readonly url: string;
  readonly port: number;
  /** Creates an empty database (named, or `t1`, `t2`…) and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server, keeping its data and port (an outage): connections are refused until resume(). */
  halt(): Promise<void>;
  /** Starts a halted server again on the same port. */
  resume(): Promise<void>;
  /** Stops the server and removes its directory. Idempotent. */
  stop(): Promise<void>;
};

/** True when the server programs are installed (a test file may skip with a reason otherwise). */
export const postgresInstalled = (): boolean => existsSync(join(PG_BIN, 'initdb')) && existsSync(join(PG_BIN, 'pg_ctl'));

export type StartPostgresOptions = {
  /**
   * fsync, full-page writes and synchronous commit on, as a production server runs (for
   * benchmarks); the default turns them off, which tests do not need and which makes them faster.
   */
  readonly durable?: boolean;
  /** More server settings (`-c name=value`), e.g. `shared_preload_libraries: 'pg_stat_statements'`. */
  readonly settings?: Readonly<Record<string, string>>;
};

/** Starts a new, empty server. Takes ~1–2 s (initdb without fsync). */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<ThrowawayPostgres> {
  if (!postgresInstalled()) throw new Error(`PostgreSQL 15 is not installed (no ${PG_BIN}/initdb): run make unit, or apt-get install postgresql-15`);
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'trawl-pg-'));
  const data = join(dir, 'data');
  // As root, the server's user must own everything it writes: its data, its socket and its log.
  if (asRoot) chownTo(dir, 'postgres');
  const as = (program: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(PG_BIN, program), ...args]) : run(join(PG_BIN, program), args);
  const watchdog = watch(dir, data, asRoot);
  try {
    // C locale: text compares byte by byte, as the store's columns do anyway (COLLATE "C").
    await as('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync', '--no-instructions']);
    const safety = options.durable
      ? '-c fsync=on -c full_page_writes=on -c synchronous_commit=on'
      : '-c fsync=off -c full_page_writes=off -c synchronous_commit=off';
    for (const [k, v] of Object.entries(options.settings ?? {}))
      if (!/^[a-z_.]+$/.test(k) || !/^[\w.,:/-]+$/.test(v)) throw new Error(`not a plain server setting: ${k}=${v}`);
    const extra = Object.entries(options.settings ?? {})
      .map(([k, v]) => ` -c ${k}=${v}`)
      .join('');
    const startOn = (p: number) =>
      as('pg_ctl', [
        '-D',
        data,
        '-l',
        join(dir, 'server.log'),
        '-w',
        '-t',
        '60',
        'start',
        '-o',
        `-c listen_addresses=127.0.0.1 -p ${p} -k ${dir} ${safety}${extra}`,
      ]);
    const port = await startOnFreePort(startOn);
    let databases = 0;
    let stopped: Promise<void> | undefined;
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    return {
      url,
      port,
      async createDatabase(name = `t${++databases}`) {
        if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        try {
          await admin.query(`CREATE DATABASE ${name}`);
        } finally {
          await admin.end();
        }
        return `postgres://postgres@127.0.0.1:${port}/${name}`;
      },
      async halt() {
        await as('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      },
      async resume() {
        await startOn(port);
      },
      stop() {
        stopped ??= (async () => {
          await as('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']).catch(() => undefined);
          rmSync(dir, { recursive: true, force: true });
          watchdog.kill();
        })();
        return stopped;
      },
    };
  } catch (e) {
    await as('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
    const log = existsSync(join(dir, 'server.log')) ? readFileSync(join(dir, 'server.log'), 'utf8').slice(-2000) : '';
    rmSync(dir, { recursive: true, force: true });
    watchdog.kill();
    throw new Error(`could not start a throwaway PostgreSQL: ${(e as Error).message}${log ? `\n${log}` : ''}`);
  }
}

/** Tries free ports until the server starts on one (another process may take a port between the probe and the start). */
async function startOnFreePort(start: (port: number) => Promise<unknown>): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      await start(port);
      return port;
    } catch (e) {
      if (attempt === 3) throw e;
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function chownTo(path: string, user: string): void {
  const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
  mkdirSync(path, { recursive: true });
  chownSync(path, uid, gid);
}

/**
 * A shell that outlives this process only to clean up after it: when this process is gone without
 * calling stop() (killed, crashed), it stops the server at once and removes its directory.
 */
function watch(dir: string, data: string, asRoot: boolean): { kill(): void } {
  const pgCtl = `${asRoot ? 'runuser -u postgres -- ' : ''}'${join(PG_BIN, 'pg_ctl')}' -D '${data}' -m immediate stop`;
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${pgCtl} >/dev/null 2>&1; rm -rf '${dir}'`;
  const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  child.unref();
  return { kill: () => void (child.exitCode === null && child.kill()) };
}

/**
 * The statements sent through a pool's own `query` — outside its transactions, each a round trip
 * to the server — counted, with their text: what a test asserts "one statement" with.
 */
export function watchStatements(pool: pg.Pool): { readonly n: number; readonly texts: readonly string[] } {
  const seen = { n: 0, texts: [] as string[] };
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as { query: unknown }).query = (...args: unknown[]) => {
    seen.n++;
    seen.texts.push(typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text);
    return query(...args);
  };
  return seen;
}

/**
 * Each NOTIFY on `channel` in the database at `url`, heard on a connection of its own: how a test
 * learns that another process committed (a Trawl store notifies at each commit that logs changes:
 * CHANGES_CHANNEL in store/postgres/changes.ts), a signal for testweb/wait.ts. It wakes once more
 * when it begins to listen, since something may have been committed before.
 */
export function onNotify(url: string, channel: string): Signal {
  return (wake, fail) => {
    const client = new pg.Client({ connectionString: url, application_name: 'trawl-test-listen' });
    let stopped = false;
    const failed = (e: Error) => stopped || fail(`listening for ${channel}: ${e.message}`);
    client.on('notification', () => wake());
    client.on('error', failed);
    client
      .connect()
      .then(() => client.query(`LISTEN ${channel}`))
      .then(() => wake(), failed);
    return () => {
      stopped = true;
      void client.end().catch(() => undefined);
    };
  };
}
