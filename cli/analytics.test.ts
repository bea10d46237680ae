// Integration: `trawl analytics export` and `trawl analytics purge` over a data directory whose
// search log holds searches across two days and a click, run as a user runs trawl.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { LoggedSearch } from '../model/index.ts';
import { openSqliteStore } from '../store/sqlite/store.ts';

const BIN = new URL('../bin/trawl.js', import.meta.url).pathname;
type Run = { code: number | null; stdout: string; stderr: string };
function run(args: string[]): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const DAY1 = Date.UTC(2026, 10, 30, 8);
const search = (id: string, at: number, query: string): LoggedSearch => ({
  id,
  at,
  session: 'tab-12345678',
  source: 'page',
  query,
  understood: query.toLowerCase(),
  filters: {},
  page: 1,
  total: 1,
  shown: ['http://e.org/a'],
  tookMs: 1.5,
  prefixes: [],
});

describe('trawl analytics', () => {
  const data = mkdtempSync(join(tmpdir(), 'trawl-cli-analytics-'));
  before(async () => {
    const store = openSqliteStore(data);
    // (2,500 searches of one millisecond, more than a page of the export: none given twice, none lost.)
    const same = Array.from({ length: 2500 }, (_, i) => search(`same-${String(i).padStart(4, '0')}`, DAY1 + 5, 'same moment'));
    await store.searchLog.append(
      [search('a', DAY1, 'Kill, "query"'), ...same, search('b', DAY1 + 86_400_000, 'vacuum')],
      [{ searchId: 'a', at: DAY1 + 10, position: 1, url: 'http://e.org/a' }],
    );
    await store.close();
  });

  it('exports every logged search with its clicks, as JSON lines or CSV, since a date', async () => {
    const all = await run(['analytics', 'export', '--data', data]);
    assert.equal(all.code, 0, all.stderr);
    const lines = all.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; at: string; clicks: { position: number }[] });
    assert.equal(lines.length, 2502);
    assert.equal(new Set(lines.map((l) => l.id)).size, 2502);
    assert.deepEqual(lines[0], {
      ...search('a', 0, 'Kill, "query"'),
      at: new Date(DAY1).toISOString(),
      clicks: [{ position: 1, url: 'http://e.org/a', at: new Date(DAY1 + 10).toISOString() }],
    });
    assert.match(all.stderr, /exported 2502 searches/);
    const csv = await run(['analytics', 'export', '--data', data, '--format', 'csv', '--since', '2026-12-01']);
    assert.equal(csv.code, 0, csv.stderr);
    assert.equal(
      csv.stdout,
      'id,at,session,source,query,understood,page,total,tookMs,clicks,firstClickPosition,firstClickUrl\r\n' +
        `b,${new Date(DAY1 + 86_400_000).toISOString()},tab-12345678,page,vacuum,vacuum,1,1,1.5,0,,\r\n`,
    );
    const quoted = await run(['analytics', 'export', '--data', data, '--format', 'csv']);
    assert.match(quoted.stdout, /\r\na,[^,]+,tab-12345678,page,"Kill, ""query""","kill, ""query""",1,1,1.5,1,1,http:\/\/e\.org\/a\r\n/);
  });

  it('refuses a bad date or format with a usage error, and purges the searches before a date', async () => {
    const bad = await run(['analytics', 'export', '--data', data, '--since', 'last week']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--since last week is not a date/);
    assert.equal((await run(['analytics', 'export', '--data', data, '--format', 'xml'])).code, 2);
    assert.equal((await run(['analytics', 'purge', '--data', data])).code, 2);
    const purge = await run(['analytics', 'purge', '--data', data, '--before', '2026-12-01']);
    assert.equal(purge.code, 0, purge.stderr);
    assert.match(purge.stderr, /deleted 2501 searches made before 2026-12-01T00:00:00\.000Z/);
    const left = await run(['analytics', 'export', '--data', data]);
    assert.deepEqual(
      left.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id),
      ['b'],
    );
  });
});
