// Integration: WACZ through the `trawl` command. A round trip — crawled, exported as WACZ, imported
// into another data directory: the same documents — and a WACZ that no Trawl code wrote (wget's
// WARC packaged by js-wacz, Harvard LIL's writer) imported, every file accounted for.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startFakeWeb, type FakeWeb } from '../testweb/index.ts';
import { wgetWarc } from '../testweb/wget.ts';

const BIN = new URL('../bin/trawl.js', import.meta.url).pathname;
const JS_WACZ = new URL('../node_modules/@harvard-lil/js-wacz/bin/cli.js', import.meta.url).pathname;
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `trawl-cli-wacz-${name}-`));

type Run = { code: number | null; stdout: string; stderr: string };
function run(args: string[]): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

type Doc = { url: string; title: string; text: string; httpStatus: number };
/** The documents of a data directory as `trawl export` gives them, by URL. */
async function documents(dataDir: string): Promise<Map<string, Doc>> {
  const r = await run(['export', '--data', dataDir]);
  assert.equal(r.code, 0, r.stderr);
  const docs = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Doc);
  return new Map(docs.map((d) => [d.url, d]));
}

describe('trawl and WACZ packages', () => {
  let web: FakeWeb;
  before(async () => {
    web = await startFakeWeb({ graphSize: 6 });
  });
  after(() => web.close());

  it('round-trips: crawled, exported as WACZ, imported elsewhere — the same documents', async () => {
    const crawled = tmp('crawled');
    writeFileSync(join(crawled, 'c.json'), JSON.stringify({ seeds: [`${web.url}graph/0`], scope: { allow: ['URL:/graph/'] } }));
    const crawl = await run(['crawl', '--config', join(crawled, 'c.json'), '--data', crawled, '--archive']);
    assert.equal(crawl.code, 0, crawl.stderr);
    const file = join(tmp('export'), 'site.wacz');
    const exported = await run(['export', '--format', 'wacz', '--output', file, '--data', crawled]);
    assert.equal(exported.code, 0, exported.stderr);

    const into = tmp('into');
    const imported = await run(['import', file, '--data', into]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(
      imported.stderr,
      /site\.wacz: WACZ 1\.1\.1 of 1 WARC \(WARC 1\.1, gzipped\); records .*6 response.*; 6 captures \(6 indexed\); read to its end\n/,
    );
    const [a, b] = [await documents(crawled), await documents(into)];
    assert.equal(a.size, 6);
    assert.deepEqual([...b.keys()].sort(), [...a.keys()].sort());
    for (const [url, d] of a) {
      const e = b.get(url)!;
      assert.deepEqual([e.title, e.text, e.httpStatus], [d.title, d.text, d.httpStatus], url);
    }
  });

  it("imports a WACZ by js-wacz of wget's WARC: its pages searchable, its one fault told", async () => {
    const dir = tmp('wget');
    const warc = await wgetWarc(dir, `${web.url}graph/0`);
    const wacz = join(dir, 'site.wacz');
    await promisify(execFile)(process.execPath, [JS_WACZ, 'create', '-f', warc, '-o', wacz, '--log-level', 'error'], { timeout: 60_000 });
    const into = tmp('wget-into');
    const r = await run(['import', wacz, '--data', into]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /site\.wacz: WACZ 1\.1\.1 of 1 WARC \(WARC 1\.0, gzipped\); records [^;]*response[^;]*; \d+ captures \(\d+ indexed[^)]*\); read to its end/,
    );
    assert.match(r.stderr, /js-wacz/, "js-wacz's doubled WARC hash told as the package's fault");
    const search = await run(['search', 'graphword4', '--data', into, '--json']);
    assert.equal(search.code, 0, search.stderr);
    assert.equal((JSON.parse(search.stdout) as { hits: { url: string }[] }).hits[0]?.url, `${web.url}graph/4`);
  });
});
