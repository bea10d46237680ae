import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_CONFIG } from '../config/defaults.ts';
import { loadConfig } from '../config/index.ts';
import type { StoredDocument } from '../model/index.ts';
import { logTo } from '../lib/log.ts';
import { Appliance } from './appliance.ts';
import { extract as extractForIndex } from './extract-for-index.ts';
import { parseSettingsOf } from './wiring.ts';
import { ParsePool } from '../crawler/index.ts';
import { analyze, isAnalysis } from '../indexer/index.ts';

const config = (dataDir: string) => loadConfig({ overrides: { dataDir } });
const doc = (id: number, word: string): StoredDocument => ({
  id,
  url: `http://e.org/${id}`,
  title: `Doc ${id}`,
  description: '',
  headings: [],
  text: `${word} text`,
  contentType: 'text/html',
  bytes: 1,
  truncated: false,
  httpStatus: 200,
  fetchedAt: 1,
  hash: '',
});
/** Stores a document the way the crawler does: store first, then index. */
const store = async (app: Appliance, d: StoredDocument) => app.feed.put(d, undefined, await app.store.documents.put(d));

/** What the config's defaults give every parse job (appliance/wiring.ts). */
const SETTINGS = parseSettingsOf(DEFAULT_CONFIG);

describe('the parse workers the appliance runs', () => {
  it('return each page with its analysis for the index', async () => {
    const pool = new ParsePool(1, { extractor: { module: new URL('./extract-for-index.ts', import.meta.url), extract: extractForIndex } });
    try {
      const body = Buffer.from('<title>Pooling</title><p>connection pool size</p>');
      const r = await pool.parse({ body, contentType: 'text/html', url: 'http://e.org/p', ...SETTINGS });
      assert.ok(r.kind === 'page' && isAnalysis(r.analysis));
      assert.deepEqual(r.analysis, analyze(r.page));
      const noindex = await pool.parse({
        body: Buffer.from('<meta name="robots" content="noindex"><p>x</p>'),
        contentType: 'text/html',
        url: 'http://e.org/n',
        ...SETTINGS,
      });
      assert.ok(noindex.kind === 'page' && noindex.analysis === undefined, 'no work for pages that will not be indexed');
    } finally {
      await pool.close();
    }
  });
});

describe('Appliance', () => {
  it('loads the last flush and replays the changes made after it (a crash between flushes loses nothing)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-app-'));
    // A writer in another process, killed (kill -9) after a flush and two more changes.
    const child = spawn(process.execPath, ['--import', 'tsx', new URL('./crash-writer.ts', import.meta.url).pathname, dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
      child.once('exit', (code) => reject(new Error(`the writer exited (${code})`)));
    });
    const died = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await died;
    const b = await Appliance.open(config(dir), { lockFor: 'test' });
    try {
      // (exact: a word gone must not be found through a close one, the forgiving search's typo tolerance)
      assert.equal((await b.index.search('unflushedword', { exact: true })).total, 1, 'a page stored after the flush is replayed');
      assert.equal((await b.index.search('flushedword', { exact: true })).total, 0, 'a removal after the flush is replayed too');
      assert.equal(b.index.documentCount, 1);
    } finally {
      await b.close();
    }
  });

  it('rebuilds the index from the crawl database when the flush is unreadable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-app-'));
    const a = await Appliance.open(config(dir), { lockFor: 'test' });
    await store(a, doc(1, 'survivor'));
    await a.close();
    writeFileSync(join(dir, 'index', 'manifest.json'), '{"format": 1, "generation": 1');
    const logs: string[] = [];
    const b = await Appliance.open(config(dir), { lockFor: 'test', log: logTo((m) => logs.push(m)) });
    try {
      assert.equal((await b.index.search('survivor')).total, 1);
      assert.ok(
        logs.some((l) => /cannot be read .* rebuilding it from the crawl database/.test(l)),
        logs.join('\n'),
      );
    } finally {
      await b.close();
    }
  });

  it('flushes only when something changed, and reports the last flush', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-app-'));
    const a = await Appliance.open(config(dir), { lockFor: 'test' });
    assert.equal((await a.status()).index.lastFlushAt, null);
    await store(a, doc(1, 'one'));
    const first = await a.flush();
    assert.ok(first);
    assert.equal(await a.flush(), undefined, 'nothing changed: nothing written');
    await store(a, doc(2, 'two'));
    assert.equal((await a.flush())?.generation, first.generation + 1);
    await a.close();
    const reader = await Appliance.open(config(dir));
    try {
      assert.ok((await reader.status()).index.lastFlushAt, 'a reader reports when the index it loaded was flushed');
      assert.equal((await reader.status()).crawl.running, false);
    } finally {
      await reader.close();
    }
    // The writer's lock went with it: another writer opens the directory.
    await (await Appliance.open(config(dir), { lockFor: 'test' })).close();
  });
});
