// Integration: choosing where the crawl is kept — `--store`, TRAWL_STORE, config `store` — as a user
// runs trawl, in child processes, against the fake web and a throwaway PostgreSQL.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startFakeWeb, type FakeWeb } from '../testweb/index.ts';
import { startPostgres, type ThrowawayPostgres } from '../testweb/postgres.ts';

const BIN = new URL('../bin/trawl.js', import.meta.url).pathname;
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `trawl-store-${name}-`));
const PASSWORD = 'pw-never-shown-42';

type Run = { code: number | null; stdout: string; stderr: string };

function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

async function count(url: string, table: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return Number((await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
  } finally {
    await c.end();
  }
}

describe('a crawl kept in PostgreSQL', () => {
  let web: FakeWeb;
  let server: ThrowawayPostgres;
  let db: string;
  /** The database's URL with a password in it (trust authentication accepts any). */
  let withPassword: string;
  before(async () => {
    [web, server] = await Promise.all([startFakeWeb({ graphSize: 6 }), startPostgres()]);
    db = await server.createDatabase('crawl');
    withPassword = db.replace('postgres@', `postgres:${PASSWORD}@`);
  });
  after(async () => {
    await web.close();
    await server.stop();
  });

  it('trawl db migrate creates the schema, then finds nothing to do', async () => {
    const first = await run(['db', 'migrate', '--store', withPassword]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, new RegExp(`${db.replaceAll('.', '\\.')}: schema \\d+; applied 1: the crawl`));
    const again = await run(['db', 'migrate'], { TRAWL_STORE: withPassword });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /nothing to migrate/);
    for (const r of [first, again]) assert.doesNotMatch(r.stdout + r.stderr, new RegExp(PASSWORD));
  });

  it('crawls into the database named by --store, the index alone in the data directory', async () => {
    const dataDir = tmp('crawl');
    // (The graph's pages only, without a politeness delay: the fake web's other paths and its
    // one-second default made this a 79 s crawl of 47 URLs.)
    const config = join(tmp('crawl-config'), 'trawl.yaml');
    writeFileSync(config, 'scope:\n  allow: ["URL:/graph/"]\nperHost:\n  delayMs: 0\n');
    const r = await run(['crawl', `${web.url}graph/0`, '--config', config, '--store', withPassword, '--data', dataDir], { TRAWL_CONCURRENCY: '2' });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /done: nothing in scope is left\. \d+ fetched/);
    assert.match(r.stderr, new RegExp(`into ${db.replaceAll('.', '\\.')} \\(index in `));
    assert.doesNotMatch(r.stdout + r.stderr, new RegExp(PASSWORD));
    assert.ok((await count(db, 'documents')) >= 6, 'the pages are in PostgreSQL');
    assert.equal(existsSync(join(dataDir, 'crawl.db')), false, 'no SQLite database beside the index');
    assert.equal(existsSync(join(dataDir, 'index', 'manifest.json')), true);
  });

  it('searches it from another data directory, the store named by TRAWL_STORE or the config file', async () => {
    const byEnv = await run(['search', 'graphword3', '--data', tmp('reader')], { TRAWL_STORE: db });
    assert.equal(byEnv.code, 0, byEnv.stderr);
    assert.match(byEnv.stdout, /1 result for "graphword3"/);
    const dir = tmp('config');
    writeFileSync(join(dir, 'trawl.json'), JSON.stringify({ store: db, dataDir: join(dir, 'data') }));
    const byConfig = await run(['export', '--config', join(dir, 'trawl.json')]);
    assert.equal(byConfig.code, 0, byConfig.stderr);
    assert.ok(byConfig.stdout.trim().split('\n').length >= 6);
  });

  it('exits 2 with one line, without the password, when the URL is not one or no server answers there', async () => {
    const refused = `postgres://postgres:${PASSWORD}@127.0.0.1:1/trawl`;
    const missing = `postgres://postgres:${PASSWORD}@127.0.0.1:${server.port}/nothing_here`;
    for (const [store, message] of [
      [refused, /^\[trawl\] error: cannot reach the PostgreSQL store postgres:\/\/postgres@127\.0\.0\.1:1\/trawl: connection refused/],
      [missing, /database "nothing_here" does not exist/],
      [
        `mysql://root:${PASSWORD}@db/trawl`,
        /^\[trawl\] error: the store must be a PostgreSQL URL such as postgres:\/\/user@host:5432\/trawl, not mysql:\/\/root@db\/trawl$/m,
      ],
      [`postgres://postgres:${PASSWORD}@127.0.0.1`, /names no database/],
    ] as const) {
      const r = await run(['crawl', `${web.url}graph/0`, '--store', store, '--data', tmp('bad')]);
      assert.equal(r.code, 2, `${store}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.doesNotMatch(r.stderr, new RegExp(PASSWORD));
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    }
  });

  it('exits 2 on a store that is not a URL at all, without echoing it', async () => {
    const r = await run(['search', 'x', '--data', tmp('notaurl')], { TRAWL_STORE: `host=db password=${PASSWORD}` });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /`store`: must be a database URL/);
    assert.doesNotMatch(r.stderr, new RegExp(PASSWORD));
  });
});
