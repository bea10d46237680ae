// Integration: `trawl worker` crawls a shared PostgreSQL store until stopped, and `trawl workers`
// lists it — running with its pages while it works, stopped after SIGTERM — as a user runs them, in
// child processes, against a web of loopback hosts and a throwaway PostgreSQL.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { Appliance } from '../appliance/index.ts';
import { loadConfig } from '../config/index.ts';
import { StatusSchema } from '../search-ui/api/status-schema.ts';
import { liveStatus } from '../search-ui/status-page.ts';
import { startManyHosts, type ManyHosts } from '../testweb/many-hosts.ts';
import { CHANGES_CHANNEL } from '../store/postgres/changes.ts';
import { onNotify, startPostgres, type ThrowawayPostgres } from '../testweb/postgres.ts';
import { anyOf, onOutput, waitFor } from '../testweb/wait.ts';

const BIN = new URL('../bin/trawl.js', import.meta.url).pathname;
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `trawl-worker-${name}-`));

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

async function indexed(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    // (Before the worker has created the schema there is nothing yet.)
    if ((await c.query(`SELECT to_regclass('documents') AS t`)).rows[0]!.t === null) return 0;
    return Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM documents')).rows[0]!.n);
  } finally {
    await c.end();
  }
}

describe('trawl worker and trawl workers', () => {
  let web: ManyHosts;
  let server: ThrowawayPostgres;
  before(async () => {
    [web, server] = await Promise.all([startManyHosts({ hosts: 4, pages: 4 }), startPostgres()]);
  });
  after(async () => {
    await web.close();
    await server.stop();
  });

  it('crawls the shared store until stopped, listed as running with its pages, then as stopped', async () => {
    const db = await server.createDatabase();
    const config = join(tmp('config'), 'trawl.json');
    writeFileSync(
      config,
      JSON.stringify({
        seeds: [`${web.hosts[0]!.origin}/`],
        scope: { allow: ['HOST:^127\\.0\\.0\\.1:\\d+$'] },
        perHost: { delayMs: 0 },
        cluster: { leaseMs: 3000 },
      }),
    );
    const child = spawn(process.execPath, [BIN, 'worker', '--config', config, '--store', db, '--data', tmp('data')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      // (Counted at each commit the store notifies, and at each line the worker prints.)
      await waitFor(async () => (await indexed(db)) >= web.pages.length, anyOf(onNotify(db, CHANGES_CHANNEL), onOutput(child)), {
        what: 'every page stored',
      }).catch((e: Error) => assert.fail(`${e.message}\n${stderr}`));
      assert.equal(await indexed(db), web.pages.length, `every page stored\n${stderr}`);
      assert.match(stderr, /worker \S+ crawling postgres:\/\//);
      const listed = await run(['workers', '--store', db, '--json']);
      assert.equal(listed.code, 0, listed.stderr);
      const { workers } = JSON.parse(listed.stdout) as { workers: { state: string; pages: number; pid: number }[] };
      assert.equal(workers.length, 1);
      assert.equal(workers[0]!.state, 'running');
      assert.equal(workers[0]!.pid, child.pid);
      // A search node on the store shows the worker in /api/status (as its schema has it) and on the dashboard.
      const node = await Appliance.open(loadConfig({ overrides: { store: db, dataDir: tmp('node') } }));
      try {
        const status = await node.status();
        assert.deepEqual(
          status.workers?.map((w) => [w.pid, w.state, w.pages > 0]),
          [[child.pid, 'running', true]],
        );
        const checked = StatusSchema.safeParse({ ...status, summary: 's' });
        assert.ok(checked.success, JSON.stringify(checked.error?.issues.slice(0, 3)));
        const page = String(await liveStatus(status, []));
        assert.match(page, /<h2 id="workers-h">Workers<\/h2>/);
        assert.match(page, new RegExp(`\\(pid ${child.pid}\\)</td><td>running</td>`));
      } finally {
        await node.close();
      }
      assert.equal(child.exitCode, null, 'a worker keeps running when the work is done');
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0, stderr);
    const table = await run(['workers', '--store', db]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^WORKER\s+MACHINE\s+PID\s+STATE\s+HOSTS\s+PAGES\/S\s+PAGES\s+HEARTBEAT\n\S+\s+\S+\s+\d+\s+stopped\s+0\s+/);
  });

  it('refuses without a shared store', async () => {
    const r = await run(['worker', '--data', tmp('nostore')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /needs|works on a store that many processes share/);
  });
});
