/**
 * The renderer's tabs and settle rule, beyond renderer.test.ts: pages of one origin are rendered in
 * one reused renderer process with nothing carried over; a page that is done is taken at once
 * ('idle'), one whose content comes after a short delay is still read whole, and hostile pages end
 * within their budget without spoiling the tab of the next page.
 */
import assert from 'node:assert/strict';
import type { RequestListener } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { serveHandler, type HandlerServer } from '../../testweb/handler-server.ts';
import { launchRenderer, type Renderer, type RenderJob, type RenderOptions, type RenderResult, type SubFetch } from './index.ts';

const CHROMIUM = '/usr/bin/chromium';
const SETTLE_MS = 400;

const page = (script: string) => `<!doctype html><html><head><title>t</title></head><body><div id="root"></div><script>${script}</script></body></html>`;
const PAGES: Record<string, string> = {
  // Its content comes from a fetch made 300 ms after load (within settleMs): it must be waited for.
  '/delayed': page(
    "addEventListener('load', () => setTimeout(() => fetch('/api/data').then((r) => r.text())" +
      `.then((t) => { document.getElementById('root').textContent = t; }), 300));`,
  ),
  // Three fetches in a row, each after the one before: no gap between them may pass for "settled".
  '/chain': page(
    "fetch('/api/data').then(() => fetch('/api/data')).then(() => fetch('/api/data')).then((r) => r.text())" +
      `.then((t) => { document.getElementById('root').textContent = 'chain ' + t; });`,
  ),
  // Its data reaches the DOM through a promise chain, a 0 ms timer, a microtask and a second fetch.
  '/deferred': page(
    "fetch('/api/data').then((r) => r.text()).then((a) => new Promise((ok) => setTimeout(() => ok(a), 0)))" +
      ".then((a) => new Promise((ok) => queueMicrotask(() => ok(a)))).then((a) => fetch('/api/data').then((r) => r.text()).then((b) => a + b))" +
      `.then((t) => { document.getElementById('root').textContent = 'deferred ' + t; });`,
  ),
  // A scheduler's way (React's): the render is cut into 40 slices of 5 ms, one MessageChannel message
  // each, none of which changes the DOM until the last; 200 ms in all, longer than any stillness asked.
  '/scheduled': page(
    "fetch('/api/data').then((r) => r.text()).then((t) => { let i = 0; const ch = new MessageChannel();" +
      ' ch.port1.onmessage = () => { const end = performance.now() + 5; while (performance.now() < end);' +
      " if (++i < 40) ch.port2.postMessage(0); else document.getElementById('root').textContent = 'scheduled ' + t; };" +
      ' ch.port2.postMessage(0); });',
  ),
  // A chunk loaded after the load event (a lazy route's script), which fetches the page's data.
  '/chunked': page(`addEventListener('load', () => { const s = document.createElement('script'); s.src = '/chunk.js'; document.head.append(s); });`),
  '/done': page(`fetch('/api/data').then((r) => r.text()).then((t) => { document.getElementById('root').textContent = t; });`),
  '/storage': page(`const seen = localStorage.getItem('k') || sessionStorage.getItem('k') || document.cookie.includes('k=') || window.name === 'k';
document.getElementById('root').textContent = seen ? 'storage-seen' : 'storage-empty';
localStorage.setItem('k', '1'); sessionStorage.setItem('k', '1'); document.cookie = 'k=1; max-age=3600; path=/'; window.name = 'k';`),
  // Hostile: the DOM never stops changing; fetches without end; dialogs without end.
  '/mutating': page(`let i = 0; document.getElementById('root').textContent = 'mutating'; setInterval(() => { document.title = String(i++); }, 20);`),
  '/fetchloop': page(`let i = 0; const go = () => fetch('/api/data?' + i++).then(go, go); go();`),
  '/alertloop': page(`for (;;) alert('again');`),
};

const handler: RequestListener = (req, res) => {
  const path = (req.url ?? '/').split('?')[0]!;
  if (path === '/api/data') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('datawordarrived');
  if (path === '/chunk.js') {
    const chunk = "fetch('/api/data').then((r) => r.text()).then((t) => { document.getElementById('root').textContent = 'chunk ' + t; });";
    return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(chunk);
  }
  const body = PAGES[path];
  if (body === undefined) return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
};

const subFetch: SubFetch = async (url, init, _maxBytes, signal) => {
  try {
    const res = await request(url, { method: 'GET', headers: init.headers, signal });
    return {
      status: res.statusCode,
      headers: { 'content-type': String(res.headers['content-type']) },
      body: new Uint8Array(await res.body.arrayBuffer()),
      truncated: false,
    };
  } catch (error) {
    return { error: (error as Error).message };
  }
};

/** Chromium renderer processes of ours (of any browser this process started), but the browser's own WebUI one. */
function pageRenderers(): Set<number> {
  const found = new Set<number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'latin1');
      if (cmd.includes('--type=renderer') && !cmd.includes('--extension-process') && cmd.includes(`--renderer-client-id`)) found.add(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Top-chrome WebUI renderers (one per browser context) among this process's descendants. */
function contextRenderers(): number {
  const parent = new Map<number, number>();
  const webui = new Set<number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      parent.set(Number(entry), Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${entry}/status`, 'latin1'))?.[1]));
      if (readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes('--top-chrome-webui')) webui.add(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  const ours = (pid: number): boolean => {
    for (let p = parent.get(pid), hops = 0; p !== undefined && p > 1 && hops < 20; p = parent.get(p), hops++) if (p === process.pid) return true;
    return false;
  };
  return [...webui].filter(ours).length;
}

function rendered(result: RenderResult): Extract<RenderResult, { kind: 'rendered' }> {
  assert.equal(result.kind, 'rendered', JSON.stringify(result).slice(0, 300));
  return result as Extract<RenderResult, { kind: 'rendered' }>;
}

describe('the renderer, page after page', () => {
  let server: HandlerServer;
  let renderer: Renderer;
  const options = (o: Partial<RenderOptions> = {}): RenderOptions => ({
    browserPath: CHROMIUM,
    concurrency: 1,
    timeoutMs: 4000,
    settleMs: SETTLE_MS,
    maxRequests: 30,
    maxBytes: 1024 * 1024,
    subFetch,
    ...o,
  });

  async function job(path: string, base = server.url): Promise<RenderJob> {
    const res = await request(base + path);
    return { url: base + path, body: new Uint8Array(await res.body.arrayBuffer()), contentType: String(res.headers['content-type']), status: res.statusCode };
  }

  before(async () => {
    server = await serveHandler(handler);
    renderer = await launchRenderer(options());
  });
  after(async () => {
    await renderer.close();
    await server.close();
  });

  it('takes a page with nothing left to do at once, well before settleMs of quiet', async () => {
    await renderer.render(await job('/done')); // the first page pays for the tab
    const ms: number[] = [];
    for (let i = 0; i < 3; i++) {
      const result = rendered(await renderer.render(await job('/done')));
      assert.match(result.html, /datawordarrived/);
      assert.equal(result.settledBy, 'idle');
      ms.push(result.ms);
    }
    // The best of three, as the machine may be busy: the settleMs rules alone would take load + SETTLE_MS or more.
    assert.ok(Math.min(...ms) < SETTLE_MS, `${ms.join(', ')} ms`);
  });

  it('waits for content fetched after a delay within settleMs, and for fetches in a row', async () => {
    const delayed = rendered(await renderer.render(await job('/delayed')));
    assert.match(delayed.html, /datawordarrived/);
    assert.equal(delayed.requests, 1);
    assert.match(rendered(await renderer.render(await job('/chain'))).html, /chain datawordarrived/);
  });

  it('reads whole a page whose data comes through timers, microtasks, a scheduler or a late script', async () => {
    for (const [path, expected] of [
      ['/deferred', /deferred datawordarriveddatawordarrived/],
      ['/scheduled', /scheduled datawordarrived/],
      ['/chunked', /chunk datawordarrived/],
    ] as const) {
      const result = rendered(await renderer.render(await job(path)));
      assert.match(result.html, expected, path);
      assert.equal(result.settledBy, 'idle', path);
      assert.match(result.html, /^<!DOCTYPE html><html>/, `${path}: the document as page.content() serializes it`);
    }
  });

  it('renders the pages of one origin in one renderer process, carrying nothing over', async () => {
    const before = pageRenderers();
    const seen = new Set<number>();
    for (let i = 0; i < 4; i++) {
      assert.match(rendered(await renderer.render(await job('/storage'))).html, /storage-empty/);
      for (const pid of pageRenderers()) if (!before.has(pid)) seen.add(pid);
    }
    assert.ok(seen.size <= 1, `${seen.size} new renderer processes for 4 pages of one origin`);
    // Another origin (another host name for the same server) gets a tab of its own, empty too.
    const other = server.url.replace('127.0.0.1', 'localhost');
    assert.match(rendered(await renderer.render(await job('/storage', other))).html, /storage-empty/);
    assert.match(rendered(await renderer.render(await job('/storage'))).html, /storage-empty/);
  });

  it('ends hostile pages within their budget, and the next page of the origin renders as usual', async () => {
    const outcomes: Record<string, string> = {};
    for (const path of ['/mutating', '/fetchloop', '/alertloop']) {
      const started = Date.now();
      const result = await renderer.render(await job(path));
      assert.ok(Date.now() - started < 4000 + 1000, `${path}: ${Date.now() - started} ms`);
      outcomes[path] = result.kind === 'rendered' ? `rendered:${result.settledBy}` : `failed:${result.reason}`;
      assert.match(rendered(await renderer.render(await job('/done'))).html, /datawordarrived/, `after ${path}`);
    }
    // A DOM that never stops changing is taken once the network has been quiet for settleMs (as it
    // was before tabs were reused); endless fetches hit maxRequests; endless dialogs the budget.
    assert.deepEqual(outcomes, { '/mutating': 'rendered:network-quiet', '/fetchloop': 'failed:too-many-requests', '/alertloop': 'failed:timeout' });
    assert.equal(renderer.stats().waiting + renderer.stats().rendering, 0);
  });
});

describe('the renderer, pages of one origin at once', () => {
  let server: HandlerServer;
  let renderer: Renderer;

  before(async () => {
    server = await serveHandler(handler);
    renderer = await launchRenderer({
      browserPath: CHROMIUM,
      concurrency: 3,
      timeoutMs: 8000,
      settleMs: SETTLE_MS,
      maxRequests: 30,
      maxBytes: 1024 * 1024,
      subFetch,
    });
  });
  after(async () => {
    await renderer.close();
    await server.close();
  });

  async function job(path: string, base = server.url): Promise<RenderJob> {
    const res = await request(base + path);
    return { url: base + path, body: new Uint8Array(await res.body.arrayBuffer()), contentType: String(res.headers['content-type']), status: res.statusCode };
  }

  it('renders them in tabs of one shared context (one WebUI renderer, not one per tab), cleared once they are done', async () => {
    const jobs = await Promise.all([job('/done'), job('/delayed'), job('/done')]);
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, contextRenderers())), 50);
    const results = await Promise.all(jobs.map((j) => renderer.render(j)));
    clearInterval(sampler);
    peak = Math.max(peak, contextRenderers());
    for (const r of results) assert.match(rendered(r).html, /datawordarrived/);
    assert.equal(peak, 1, `${peak} contexts' WebUI renderers for three tabs of one origin`);
    // Cookies and storage written by a page are gone for the pages rendered after the origin was idle.
    for (let i = 0; i < 2; i++) assert.match(rendered(await renderer.render(await job('/storage'))).html, /storage-empty/);
    // Another origin gets a context of its own.
    const other = server.url.replace('127.0.0.1', 'localhost');
    await Promise.all([renderer.render(await job('/done', other)), renderer.render(await job('/done'))]);
    assert.ok(contextRenderers() >= 2, 'one context per origin');
  });
});
