// Integration (issue 22): a crawler process on a PostgreSQL store rides out an outage of the server.
// `trawl crawl --store postgres://…` is crawling a web of loopback hosts when PostgreSQL is stopped
// (a throwaway server, halted and started again on its port): the crawl pauses — no new requests
// beyond those already in flight — waits, and once the server is back finishes on its own, with
// every page stored and nothing left queued or in flight. Asserted from the hosts' own logs and
// from the database.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startManyHosts, type ManyHosts } from '../testweb/many-hosts.ts';
import { CHANGES_CHANNEL } from '../store/postgres/changes.ts';
import { onNotify, startPostgres, type ThrowawayPostgres } from '../testweb/postgres.ts';
import { anyOf, onOutput, waitFor } from '../testweb/wait.ts';

const BIN = new URL('../bin/trawl.js', import.meta.url).pathname;
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `trawl-outage-${name}-`));
const CONCURRENCY = 4;
const OUTAGE_MS = 4000;

async function count(url: string, sql: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    // (Before the crawler has made the schema there is nothing to count.)
    if ((await c.query(`SELECT to_regclass('documents') AS t`)).rows[0]!.t === null) return 0;
    return Number((await c.query<{ n: string }>(sql)).rows[0]!.n);
  } finally {
    await c.end();
  }
}

/** Requests the hosts received (robots.txt and sitemaps aside) that arrived between `from` and `to` (ms). */
function requestsBetween(web: ManyHosts, from: number, to: number): number {
  return web.hosts.flatMap((h) => h.requests).filter((r) => r.path !== '/robots.txt' && r.path !== '/sitemap.xml' && r.start >= from && r.start < to).length;
}

describe('a crawler process through a PostgreSQL outage', () => {
  let server: ThrowawayPostgres;
  let web: ManyHosts;
  before(async () => {
    [server, web] = await Promise.all([startPostgres(), startManyHosts({ hosts: 6, pages: 15, delayMs: 40 })]);
  });
  after(async () => {
    await server.stop();
    await web.close();
  });

  it('pauses while the server is away, then finishes the crawl with every page stored', async () => {
    const db = await server.createDatabase();
    const config = join(tmp('config'), 'trawl.json');
    writeFileSync(
      config,
      JSON.stringify({
        seeds: [`${web.hosts[0]!.origin}/`],
        scope: { allow: ['HOST:^127\\.0\\.0\\.1:\\d+$'] },
        concurrency: CONCURRENCY,
        perHost: { maxConnections: 1, delayMs: 20 },
        // Leases shorter than the outage: they run out while the server is away, and are taken again.
        cluster: { leaseMs: 2000, outageRetry: '2m' },
      }),
    );
    const child = spawn(process.execPath, [BIN, 'crawl', '--config', config, '--store', db, '--data', tmp('data')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      // (Counted at each commit the store notifies, and at each line the crawler prints.)
      await waitFor(
        async () => (await count(db, 'SELECT count(*) AS n FROM documents')) >= web.pages.length / 4,
        anyOf(onNotify(db, CHANGES_CHANNEL), onOutput(child)),
        { what: 'a quarter of the pages stored before the outage' },
      ).catch((e: Error) => assert.fail(`${e.message}\n${stderr}`));
      assert.equal(child.exitCode, null, `the crawl ended before the outage:\n${stderr}`);
      await server.halt();
      const haltedAt = Date.now();
      // The one wait on the clock here: the outage itself, whose length is the scenario (longer than
      // the leases, so that they run out while the server is away). Nothing can tell that a request
      // did not start: the hosts' logs are read once it is over.
      await new Promise((r) => setTimeout(r, OUTAGE_MS));
      const resumedAt = Date.now();
      // Requests that started in the outage's second half: none — only those in flight when it began could start late.
      assert.equal(requestsBetween(web, haltedAt + OUTAGE_MS / 2, resumedAt), 0, 'the crawl paused while the store was away');
      assert.equal(child.exitCode, null, `the crawler waits for the store:\n${stderr}`);
      await server.resume();
      assert.equal(await exited, 0, stderr);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    assert.match(stderr, /done: nothing in scope is left/);
    assert.equal(await count(db, 'SELECT count(*) AS n FROM documents'), web.pages.length, 'every page stored');
    assert.equal(await count(db, `SELECT count(*) AS n FROM urls WHERE state IN ('queued', 'fetching')`), 0, 'nothing left queued or in flight');
    const fetched = new Set(
      web.hosts.flatMap((h) => h.requests.filter((r) => r.path !== '/robots.txt' && r.path !== '/sitemap.xml').map((r) => `${h.origin}${r.path}`)),
    );
    assert.deepEqual([...fetched].sort(), [...web.pages].sort(), 'every page fetched');
  });
});
