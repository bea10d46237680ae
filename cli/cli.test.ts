// Integration: the `trawl` command as a user runs it, in child processes, against the fake web.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { serveHandler, startFakeWeb, type FakeWeb, type HandlerServer } from '../testweb/index.ts';
import { topicWebHandler } from '../testweb/topic-web.ts';
import { acquireLock } from '../store/sqlite/index.ts';
import { SearchResponseSchema } from '../search-ui/api/schemas.ts';
import type { SearchJson } from '../search-ui/api/search-json.ts';
import { onEvent, onOutput, waitFor } from '../testweb/wait.ts';

const BIN = new URL('../bin/trawl.js', import.meta.url).pathname;
const CLOCK_AHEAD = new URL('../testweb/clock-ahead.mjs', import.meta.url).href;
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `trawl-cli-${name}-`));

type Run = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

/** Runs `trawl`; `clockAheadMs`: on a clock that far ahead of the real one (testweb/clock-ahead.mjs). */
function trawl(args: string[], options: { clockAheadMs?: number } = {}): { child: ChildProcess; done: Promise<Run>; output: () => string } {
  const ahead = options.clockAheadMs ? ['--import', CLOCK_AHEAD] : [];
  const env = { ...process.env, ...(options.clockAheadMs ? { CLOCK_AHEAD_MS: String(options.clockAheadMs) } : {}) };
  const child = spawn(process.execPath, [...ahead, BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Run>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done, output: () => stdout + stderr };
}

const run = (args: string[], options: { clockAheadMs?: number } = {}) => trawl(args, options).done;

/** The address a server prints once it listens, read from its output as it comes. */
const address = (p: ReturnType<typeof trawl>) => waitFor(() => /Search at (\S+)/.exec(p.output())?.[1], onOutput(p.child), { what: 'the server address' });

const countDocs = (dataDir: string): number => {
  const file = join(dataDir, 'crawl.db');
  if (!existsSync(file)) return 0;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n;
  } catch {
    return 0;
  } finally {
    db.close();
  }
};

describe('trawl usage errors', () => {
  it('exits 2 and says why on a bad flag, a bad port, an unknown command', async () => {
    const bad = await run(['start', '--nope']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /unknown option '--nope'/);
    const port = await run(['serve', '--port', 'eighty', '--data', tmp('port')]);
    assert.equal(port.code, 2);
    assert.match(port.stderr, /--port must be a number from 0 to 65535/);
    assert.equal((await run(['frobnicate'])).code, 2);
  });

  it('exits 2 on an invalid config, naming the field and how to fix it', async () => {
    const dir = tmp('config');
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'seeds: [http://127.0.0.1:9/]\nperHost:\n  delayMs: -5\nconcurency: 3\n');
    const r = await run(['crawl', '--config', file, '--data', dir]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /`perHost\.delayMs`: Too small: expected number to be >=0/);
    assert.match(r.stderr, /`concurency` is not a setting; did you mean `concurrency`\?/);
  });

  it('exits 2 when there is nothing to crawl', async () => {
    const r = await run(['crawl', '--data', tmp('empty')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /nothing to crawl: give a URL/);
  });

  it('prints help and the version with exit 0', async () => {
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    for (const cmd of ['start', 'crawl', 'serve', 'search', 'export', 'demo']) assert.match(help.stdout, new RegExp(`\\b${cmd}\\b`));
    assert.match((await run(['--version'])).stdout, /^\d+\.\d+\.\d+/);
  });
});

describe('crawl a web it has never seen, then serve, search and export it', () => {
  let web: FakeWeb;
  const dataDir = tmp('flow');
  before(async () => {
    web = await startFakeWeb({ graphSize: 6 });
  });
  after(() => web.close());

  it('crawls with a config holding only seeds, scope, userAgent and concurrency', async () => {
    const config = join(dataDir, 'trawl.json');
    writeFileSync(config, JSON.stringify({ seeds: [`${web.url}graph/0`], scope: { allow: ['URL:/graph/'] }, userAgent: 'FlowBot/1.0', concurrency: 2 }));
    const r = await run(['crawl', '--config', config, '--data', dataDir]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /done: nothing in scope is left\. 6 fetched/);
    assert.ok(web.requests.every((q) => q.userAgent === 'FlowBot/1.0'));
    acquireLock(dataDir, 'test').release(); // (throws if the lock were still held)
    assert.equal(existsSync(join(dataDir, 'writer.lock.owner')), false, 'the lock is released');
    assert.equal(existsSync(join(dataDir, 'index', 'manifest.json')), true, 'the index was flushed');
  });

  it('serves the pages through /api/search', async () => {
    const serve = trawl(['serve', '--data', dataDir, '--port', '0']);
    try {
      const url = await address(serve);
      const body = (await (await fetch(`${url}api/search?q=graphword3`)).json()) as { total: number; hits: { url: string }[] };
      assert.equal(body.total, 1);
      assert.equal(body.hits[0]?.url, `${web.url}graph/3`);
    } finally {
      serve.child.kill('SIGTERM');
      assert.equal((await serve.done).code, 0);
    }
  });

  it('searches from the shell, as text and as JSON', async () => {
    const text = await run(['search', 'graphword2', '--data', dataDir]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /1 result for "graphword2"/);
    assert.match(text.stdout, /Graph page 2/);
    const json = await run(['search', 'graph', 'page', '--json', '--data', dataDir]);
    const answer = JSON.parse(json.stdout) as { total: number; hits: { fetchedAt: string }[] };
    assert.equal(answer.total, 6);
    // The same JSON as /api/search: its schema, times in ISO 8601 (not epoch ms), no internal ids.
    assert.deepEqual(SearchResponseSchema.strict().parse(answer), answer);
    for (const h of answer.hits) assert.match(h.fetchedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // --explain: each result's score taken apart under it (and in the JSON, as /api/search?explain=1 gives it).
    const explained = await run(['search', 'graphword2', 'zebraword', '--explain', '--data', dataDir]);
    assert.equal(explained.code, 0, explained.stderr);
    assert.match(explained.stdout, /· score \d+\.\d{3} = \(words \+ title bonus \d+\.\d{3} \+ links \d+\.\d{3} \(\d+ in\)\) × only alternatives/);
    assert.match(explained.stdout, /· "graphword2": \d+\.\d{3} \(weight \d+\.\d{3}: [^)]*body \d+\.\d{3}/);
    assert.match(explained.stdout, /· missing: "zebraword"/);
    const explainedJson = JSON.parse((await run(['search', 'graphword2', '--explain', '--json', '--data', dataDir])).stdout) as SearchJson;
    assert.deepEqual(SearchResponseSchema.strict().parse(explainedJson), explainedJson);
    assert.equal(explainedJson.hits[0]!.explain!.words[0]!.word, 'graphword2');
  });

  /** What `trawl export` wrote of the sound data directory, to compare with the exports that follow. */
  let exported = '';
  it('exports every document as one JSON object a line', async () => {
    const r = await run(['export', '--data', dataDir]);
    assert.equal(r.code, 0, r.stderr);
    exported = r.stdout;
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(lines.length, 6);
    for (const l of lines) for (const k of ['url', 'urls', 'title', 'text', 'fetchedAt', 'httpStatus', 'contentType']) assert.ok(k in l, k);
    assert.ok(lines.some((l) => String(l.text).includes('graphword5')));
    assert.equal((await run(['export', '--format', 'csv', '--data', dataDir])).code, 2);
  });
  it('exports from the crawl database alone: the same lines without the index on disk, which it neither reads nor makes', async () => {
    const moved = join(dataDir, 'index-elsewhere');
    renameSync(join(dataDir, 'index'), moved);
    try {
      const r = await run(['export', '--data', dataDir]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, exported, 'byte-identical');
      assert.doesNotMatch(r.stderr, /index/, 'nothing said of an index: none was loaded or rebuilt');
      assert.equal(existsSync(join(dataDir, 'index')), false);
    } finally {
      renameSync(moved, join(dataDir, 'index'));
    }
  });

  it(
    'goes on when the index on disk is damaged: search, serve and crawl rebuild it from the crawl database, export never reads it ' +
      '(regression: exit 1, "Invalid typed array length")',
    async () => {
      const gen = readdirSync(join(dataDir, 'index')).find((f) => f.startsWith('gen-'))!;
      const vectors = join(dataDir, 'index', gen, 'vectors.bin');
      const good = readFileSync(vectors);
      for (const damage of [good.subarray(0, good.length >> 1), Buffer.concat([good.subarray(0, 64), Buffer.alloc(good.length - 64, 0xff)])]) {
        writeFileSync(vectors, damage);
        const found = await run(['search', 'graphword2', '--data', dataDir]);
        assert.equal(found.code, 0, found.stderr);
        assert.match(found.stdout, /1 result for "graphword2"/);
        assert.match(found.stderr, /cannot be read .*vectors\.bin.*rebuilding it from the crawl database/);
        const exportedAgain = await run(['export', '--data', dataDir]);
        assert.equal(exportedAgain.code, 0, exportedAgain.stderr);
        assert.equal(exportedAgain.stdout, exported, 'the same lines');
        assert.doesNotMatch(exportedAgain.stderr, /rebuilding|cannot be read/, 'the damaged index is not read');
        const serve = trawl(['serve', '--data', dataDir, '--port', '0']);
        try {
          const url = await address(serve);
          assert.equal(((await (await fetch(`${url}api/search?q=graphword3`)).json()) as { total: number }).total, 1);
        } finally {
          serve.child.kill('SIGTERM');
          assert.equal((await serve.done).code, 0);
        }
      }
      // A writer rebuilds it and flushes a sound one.
      const crawled = await run(['crawl', '--data', dataDir]);
      assert.equal(crawled.code, 0, crawled.stderr);
      const again = await run(['search', 'graphword2', '--data', dataDir]);
      assert.doesNotMatch(again.stderr, /rebuilding/, 'the crawl left a sound index behind');
      assert.match(again.stdout, /1 result for "graphword2"/);
    },
  );
});

describe('errors a new user hits', () => {
  it('search, export and serve refuse a directory that holds no crawl (exit 2), and create nothing there', async () => {
    for (const args of [['search', 'anything'], ['export'], ['serve', '--port', '0']]) {
      const dir = tmp('nocrawl');
      const r = await run([...args, '--data', dir]);
      assert.equal(r.code, 2, `${args[0]}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`no crawl in ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), args[0]);
      assert.deepEqual(readdirSync(dir), [], `${args[0]} left nothing behind`);
    }
  });

  it('names the real cause when no seed can be fetched (DNS, refused), and crawl exits 1', async () => {
    const closed = await serveHandler((_, res) => res.end());
    const refusedUrl = `${closed.url}/`;
    await closed.close();
    const dir = tmp('noseed');
    const r = await run(['crawl', 'http://nope.invalid/', refusedUrl, '--data', dir]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /no seed could be fetched/);
    assert.match(r.stderr, /http:\/\/nope\.invalid\/: dns — the host name did not resolve/);
    assert.match(r.stderr, new RegExp(`${refusedUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: refused — the connection was refused`));
    assert.doesNotMatch(r.stderr, /robots-unavailable/, 'not reported as a robots.txt problem');
  });
});

describe('trawl start', () => {
  it('serves while it crawls, refuses a second writer, and stops gracefully on SIGTERM', async () => {
    const web = await startFakeWeb({ graphSize: 30, delayMs: 20 });
    const dataDir = tmp('start');
    const config = join(dataDir, 'c.yaml');
    writeFileSync(config, `scope:\n  allow: ["URL:/graph/"]\nperHost:\n  delayMs: 100\n`);
    const start = trawl(['start', `${web.url}graph/0`, '--config', config, '--data', dataDir, '--port', '0']);
    try {
      const url = await address(start);
      // Searchable while the crawl is still running: the status asked again at each request the crawl makes.
      const early = await waitFor(
        async () => {
          const s = (await (await fetch(`${url}api/status`)).json()) as { crawl: { running: boolean }; index: { documents: number } };
          return s.index.documents >= 2 && s;
        },
        onEvent(web.events, 'request'),
        { what: 'two documents' },
      );
      assert.equal(early.crawl.running, true);
      const hit = (await (await fetch(`${url}api/search?q=graphword0`)).json()) as { total: number };
      assert.equal(hit.total, 1);

      const second = await run(['crawl', '--data', dataDir]);
      assert.equal(second.code, 1);
      assert.match(second.stderr, /is in use by "trawl start" \(pid \d+/);
    } finally {
      start.child.kill('SIGTERM');
      await web.close();
    }
    const r = await start.done;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /SIGTERM: stopping gracefully/);
    acquireLock(dataDir, 'test').release(); // (throws if the lock were still held)
    assert.equal(existsSync(join(dataDir, 'index', 'manifest.json')), true, 'flushed on stop');
  });
});

describe('kill -9', () => {
  it('loses no stored page, and a resumed crawl fetches nothing twice but what was in flight', async () => {
    const web = await startFakeWeb({ graphSize: 40, delayMs: 30 });
    try {
      const dataDir = tmp('kill');
      const config = join(dataDir, 'c.yaml');
      writeFileSync(config, `scope:\n  allow: ["URL:/graph/"]\nperHost:\n  delayMs: 50\nindex:\n  flushIntervalMs: 600000\n`);
      const crawl = trawl(['crawl', `${web.url}graph/0`, '--config', config, '--data', dataDir]);
      // (The database counted again at each request the crawl makes. Not at each change in the data
      // directory: opening the database to count touches its WAL, which would wake the wait again.)
      await waitFor(() => countDocs(dataDir) >= 6, onEvent(web.events, 'request'), { what: 'six stored documents' });
      crawl.child.kill('SIGKILL');
      const killed = await crawl.done;
      assert.equal(killed.signal, 'SIGKILL');
      assert.equal(existsSync(join(dataDir, 'index', 'manifest.json')), false, 'nothing was flushed before the kill');

      // Every page stored before the kill is searchable: the change log is replayed.
      const stored = countDocs(dataDir);
      const r = await run(['search', 'graph', 'page', '--json', '--size', '100', '--data', dataDir]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal((JSON.parse(r.stdout) as { total: number }).total, stored, 'every stored page is searchable');

      // The stale lock of the killed process does not block the resume.
      const resumed = await run(['crawl', '--config', config, '--data', dataDir]);
      assert.equal(resumed.code, 0, resumed.stderr);
      const pages = web.paths().filter((p) => p.startsWith('/graph/'));
      const twice = pages.length - new Set(pages).size;
      assert.equal(new Set(pages).size, 40, 'the resumed crawl finished the graph');
      assert.ok(twice <= 1, `${twice} pages fetched twice; only the one in flight at the kill may be (perHost.maxConnections is 1)`);
      const all = await run(['search', 'graph', 'page', '--json', '--size', '100', '--data', dataDir]);
      assert.equal((JSON.parse(all.stdout) as { total: number }).total, 40);
    } finally {
      await web.close();
    }
  });
});

describe('trawl recrawl', () => {
  it('runs a pass over a changed site and sums it up; the search then follows the site', async () => {
    const web = await startFakeWeb();
    try {
      const dataDir = tmp('recrawl');
      const config = join(dataDir, 'trawl.json');
      writeFileSync(
        config,
        JSON.stringify({ seeds: [`${web.url}site/`], scope: { allow: ['URL:/site/'] }, perHost: { delayMs: 0 }, retry: { baseDelayMs: 50, maxAttempts: 2 } }),
      );
      const first = await run(['crawl', '--config', config, '--data', dataDir]);
      assert.equal(first.code, 0, first.stderr);
      web.setSiteVersion(2);
      const r = await run(['recrawl', '--all', '--config', config, '--data', dataDir]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /recrawling 6 URLs/);
      // /site/ and /site/edited changed; /site/added and /site/new-home are new; /site/deleted and
      // /site/moved are gone; /site/flaky failed (and stays searchable).
      assert.match(r.stderr, /recrawl done in [\d.]+ s: 1 unchanged, 2 changed, 2 new, 2 gone, 1 failed\./);
      const search = await run(['search', 'movedword', '--json', '--data', dataDir]);
      assert.deepEqual(
        (JSON.parse(search.stdout) as { hits: { url: string }[] }).hits.map((h) => new URL(h.url).pathname),
        ['/site/new-home'],
      );
      const usage = await run(['recrawl', '--data', dataDir]);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /say what to recrawl: --all, --due, --host HOST or URLs/);
    } finally {
      await web.close();
    }
  });

  it('--due runs a pass over the pages whose revisit is due, and only those', async () => {
    const web = await startFakeWeb();
    try {
      const dataDir = tmp('recrawl-due');
      const config = join(dataDir, 'trawl.json');
      writeFileSync(
        config,
        JSON.stringify({
          seeds: [`${web.url}site/`],
          scope: { allow: ['URL:/site/'] },
          perHost: { delayMs: 0 },
          retry: { baseDelayMs: 50, maxAttempts: 2 },
          recrawl: { minInterval: '1s', maxInterval: '1s' },
        }),
      );
      assert.equal((await run(['crawl', '--config', config, '--data', dataDir])).code, 0);
      // Every page is due one second after its fetch: the pass runs on a clock 1.1 s ahead, as if that much later.
      web.setSiteVersion(2);
      const mark = web.requests.length;
      const r = await run(['recrawl', '--due', '--config', config, '--data', dataDir], { clockAheadMs: 1100 });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /recrawling the 6 pages of .* whose revisit is due/);
      assert.match(r.stderr, /recrawl done in [\d.]+ s: 1 unchanged, 2 changed, 2 new, 2 gone, 1 failed\./);
      // Pages that fall due again during the pass (after a second) wait for the next one.
      const pass = web.requests.slice(mark).map((q) => q.path);
      assert.equal(pass.filter((p) => p === '/site/unchanged').length, 1, pass.join(' '));
      const both = await run(['recrawl', '--due', '--all', '--data', dataDir]);
      assert.equal(both.code, 2);
      assert.match(both.stderr, /is a whole pass; give it alone/);
    } finally {
      await web.close();
    }
  });
});

describe('trawl classify', () => {
  const topic = new URL('../config/topics/numismatics.txt', import.meta.url).pathname;
  let web: HandlerServer;
  before(async () => {
    web = await serveHandler(topicWebHandler);
  });
  after(() => web.close());

  it('fetches a URL and says its score, the decision, its classes, and which terms matched where', async () => {
    const r = await run(['classify', `${web.url}/coins/0`, '--topic', topic, '--cutoff', '30']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^RELEVANT — score 183 ≥ cutoff 30 \(topic numismatics \(plain scorer, cutoff 30\)\)$/m);
    // coins? 10 × (title 4 + headings 2 + text 4) = 100 — the list of links (/coins/1 …) is a link-dense block,
    // not text; ancient @and coins? 5 × (4 + 2 + 1) = 35; … (see the topic file)
    assert.match(r.stdout, /^classes: coins 123, ancient 46, numismatics 20, minting 8, bullion 3$/m);
    assert.match(r.stdout, /^ {2}line 15 +10: coins\? +\+100 +in title ×1, headings ×1, text ×4$/m);
    const crypto = await run(['classify', `${web.url}/crypto`, '--topic', topic, '--cutoff', '30', '--json']);
    assert.equal(crypto.code, 0, crypto.stderr);
    const v = JSON.parse(crypto.stdout) as {
      score: number;
      relevant: boolean;
      classes: { name: string }[];
      matches: { term: string; score: number; where: { location: string; hits: number }[] }[];
    };
    assert.deepEqual(Object.keys(v), ['score', 'relevant', 'classes', 'matches']);
    assert.deepEqual([v.score, v.relevant], [-32, false]);
    assert.deepEqual(
      v.matches.find((m) => m.term === 'bitcoin'),
      {
        term: 'bitcoin',
        line: 34,
        weight: -10,
        classes: [],
        score: -100,
        where: [
          { location: 'title', hits: 1 },
          { location: 'headings', hits: 1 },
          { location: 'text', hits: 4 },
        ],
      },
    );
  });

  it('reads a saved page, and takes the scorer from the command line', async () => {
    const dir = tmp('classify');
    writeFileSync(join(dir, 'page.html'), '<title>x</title><p>a b c d e f g h i numismatics</p>');
    const r = await run(['classify', join(dir, 'page.html'), '--topic', topic, '--scorer', 'position', '--json']);
    assert.equal(r.code, 0, r.stderr);
    // "x" is word 0, a…i words 1–9: numismatics at word 10 counts 20 × 100 / 110
    assert.equal((JSON.parse(r.stdout) as { score: number }).score, 18.182);
  });

  it('exits 2 naming the line of an invalid topic file, in classify and in a crawl', async () => {
    const dir = tmp('badtopic');
    writeFileSync(join(dir, 'bad.txt'), '# coins\n10: coins=coins\n12: coin(s=coins\n');
    const r = await run(['classify', `${web.url}/coins/0`, '--topic', join(dir, 'bad.txt')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bad\.txt line 3: "coin\(s" is not a valid regular expression/);
    writeFileSync(join(dir, 'crawl.yaml'), `seeds: ["${web.url}/"]\nfocus:\n  topicFile: bad.txt\n`);
    const c = await run(['crawl', '--config', join(dir, 'crawl.yaml'), '--data', dir]);
    assert.equal(c.code, 2, 'the topic file is found beside the config, and refused before any fetch');
    assert.match(c.stderr, /bad\.txt line 3: /);
    assert.equal(web.hits.filter((h) => h === '/').length, 0);
  });

  it('exits 2 without a topic, or with a bad flag', async () => {
    assert.match((await run(['classify', `${web.url}/coins/0`])).stderr, /no topic: give --topic FILE/);
    const bad = await run(['classify', `${web.url}/coins/0`, '--topic', topic, '--scorer', 'fancy']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--scorer must be plain or position/);
    const missing = await run(['classify', join(tmp('nofile'), 'none.html'), '--topic', topic]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read .*none\.html \(ENOENT\)/);
  });
});
