import { spawn } from 'node:child_process';
import { createReadStream, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { startFakeWeb, type FakeWeb } from '../testweb/index.ts';

// A real player opens what Trawl writes: a crawl with --archive and archive.format wacz, and
// `trawl export --format wacz`, each .wacz served from a plain static server (HTTP ranges, as a
// bucket or a CDN serves it) to ReplayWeb.page — its prebuilt ui.js and service worker sw.js from
// the npm package — in Chromium, until the archived page's own text shows in its frame.
const BIN = new URL('../bin/trawl.js', import.meta.url).pathname;
const REPLAY = new URL('../node_modules/replaywebpage/', import.meta.url).pathname;

test.describe.configure({ mode: 'serial' });

let web: FakeWeb;
let server: Server;
let base: string;
const files: Record<string, string> = {};
/** The status of each answer for a .wacz: ReplayWeb.page reads it by ranges (206). */
const served: number[] = [];

/** Runs `trawl ARGS` to its end; fails with its output unless it exits 0. */
function trawl(args: string[]): Promise<void> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) =>
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`trawl ${args.join(' ')} exited ${code}:\n${stderr}`)))),
  );
}

/** A file, whole or the one byte range asked for (RFC 9110: `bytes=a-b`, `bytes=a-`, `bytes=-n`). */
function sendFile(req: IncomingMessage, res: ServerResponse, path: string, type: string): void {
  const size = statSync(path).size;
  const headers = { 'content-type': type, 'accept-ranges': 'bytes', 'cache-control': 'no-store' };
  const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
  let start = 0;
  let end = size - 1;
  if (range && (range[1] || range[2])) {
    if (range[1]) {
      start = Number(range[1]);
      if (range[2]) end = Math.min(Number(range[2]), size - 1);
    } else start = Math.max(0, size - Number(range[2]));
    if (start > end) return void res.writeHead(416, { ...headers, 'content-range': `bytes */${size}` }).end();
    res.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${end}/${size}`, 'content-length': end - start + 1 });
  } else res.writeHead(200, { ...headers, 'content-length': size });
  if (req.method === 'HEAD' || size === 0) return void res.end();
  createReadStream(path, { start, end }).pipe(res);
}

/** The embedding page: ReplayWeb.page's element over one .wacz, opened at an archived URL. */
const embedding = (source: string, url: string) =>
  '<!doctype html><html><head><meta charset="utf-8"><title>Replay</title><script src="/replay/ui.js"></script></head><body>' +
  `<replay-web-page source="${source}" url="${url}" replayBase="/replay/" style="height: 600px; display: block"></replay-web-page>` +
  '</body></html>';

function handle(req: IncomingMessage, res: ServerResponse): void {
  const u = new URL(req.url ?? '/', 'http://x');
  if (u.pathname === '/')
    return void res.writeHead(200, { 'content-type': 'text/html' }).end(embedding(u.searchParams.get('source')!, u.searchParams.get('url')!));
  // (The service worker's scope is its folder, /replay/: the default, no header needed.)
  if (u.pathname === '/replay/ui.js' || u.pathname === '/replay/sw.js')
    return void sendFile(req, res, join(REPLAY, u.pathname.slice('/replay/'.length)), 'text/javascript');
  const file = files[u.pathname.slice(1)];
  if (file) {
    sendFile(req, res, file, 'application/wacz');
    return void served.push(res.statusCode);
  }
  res.writeHead(404).end();
}

test.beforeAll(async () => {
  web = await startFakeWeb({ graphSize: 4 });
  const dir = mkdtempSync(join(tmpdir(), 'trawl-e2e-replay-'));
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({ seeds: [`${web.url}graph/0`], scope: { allow: ['URL:/graph/'] }, perHost: { delayMs: 0 }, archive: { format: 'wacz' } }),
  );
  await trawl(['crawl', '--config', config, '--data', dir, '--archive']);
  await trawl(['export', '--format', 'wacz', '--output', join(dir, 'export.wacz'), '--data', dir]);
  files['export.wacz'] = join(dir, 'export.wacz');
  files['crawl.wacz'] = join(dir, 'archive', readdirSync(join(dir, 'archive')).find((f) => f.endsWith('.wacz'))!);
  // The site is gone: what the player shows can only come from the archive.
  await web.close();
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

/** The text of every frame of the page (the archived page is in a frame within ReplayWeb.page's). */
async function framesText(page: Page): Promise<string> {
  const texts = await Promise.all(page.frames().map((f) => f.evaluate<string>('document.body ? document.body.innerText : ""').catch(() => '')));
  return texts.join('\n');
}

for (const source of ['export.wacz', 'crawl.wacz']) {
  test(`ReplayWeb.page replays an archived page from ${source === 'export.wacz' ? 'trawl export --format wacz' : "the crawl's own WACZ"}`, async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const url = `${web.url}graph/2`;
    served.length = 0;
    await page.goto(`${base}/?source=/${source}&url=${encodeURIComponent(url)}`);
    await expect.poll(() => framesText(page), { timeout: 60_000, message: `the archived ${url} in ReplayWeb.page's frame` }).toContain('graphword2');
    expect(await framesText(page)).toContain('Graph page 2');
    expect(errors, 'no error in the page').toEqual([]);
    expect(served.filter((s) => s === 206).length, 'the .wacz read by ranges').toBeGreaterThan(0);
  });
}
