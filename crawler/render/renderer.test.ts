/**
 * The renderer against the fake SPA web (testweb/spa-web.ts) in Debian's Chromium. The page's own
 * body is fetched here, as the crawler would, and the browser's sub-requests go through a small
 * undici `subFetch`: the site's log then shows exactly what rendering asked for.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { request, type Dispatcher } from 'undici';
import { serveHandler, type HandlerServer } from '../../testweb/handler-server.ts';
import { spaWeb, type SpaWeb } from '../../testweb/spa-web.ts';
import { every, waitFor } from '../../testweb/wait.ts';
import {
  BrowserUnavailable,
  findBrowser,
  launchRenderer,
  type Renderer,
  type RenderJob,
  type RenderOptions,
  type RenderResult,
  type SubFetch,
} from './index.ts';

const CHROMIUM = '/usr/bin/chromium';

const subFetch: SubFetch = async (url, init, maxBytes, signal) => {
  try {
    const res = await request(url, {
      method: init.method as Dispatcher.HttpMethod,
      headers: init.headers,
      body: init.body ? Buffer.from(init.body) : undefined,
      signal,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      if (size + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - size));
        truncated = true;
        break; // leaving the loop destroys the body: the rest is never read
      }
      chunks.push(chunk);
      size += chunk.length;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    return { status: res.statusCode, headers, body: Buffer.concat(chunks), truncated };
  } catch (error) {
    return { error: (error as Error).message };
  }
};

function options(overrides: Partial<RenderOptions> = {}): RenderOptions {
  return { browserPath: CHROMIUM, concurrency: 2, timeoutMs: 4000, settleMs: 300, maxRequests: 20, maxBytes: 5 * 1024 * 1024, subFetch, ...overrides };
}

/** The browser processes this test process started: Chromium's main processes are our children. */
function ourBrowserPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && readFileSync(`/proc/${entry}/comm`, 'latin1').trim() === 'chromium') pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Chromium's renderer processes below `root`. */
function renderersBelow(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const todo = [...(children.get(root) ?? [])];
  for (let pid = todo.pop(); pid !== undefined; pid = todo.pop()) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('--type=renderer')) found.push(pid);
    } catch {
      continue;
    }
    todo.push(...(children.get(pid) ?? []));
  }
  return found;
}

function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in ticks of 10 ms
  } catch {
    return 0;
  }
}

/**
 * Resolves once `holds` about the browsers' processes does, looked at every 20 ms: a poll, since
 * nothing tells this process of them — the browsers are Playwright's children, and a renderer's
 * CPU time is in /proc alone.
 */
const inProc = (what: string, holds: () => boolean) => waitFor(holds, every(20), { what });

function rendered(result: RenderResult): Extract<RenderResult, { kind: 'rendered' }> {
  assert.equal(result.kind, 'rendered', JSON.stringify(result).slice(0, 300));
  return result as Extract<RenderResult, { kind: 'rendered' }>;
}

describe('the renderer', () => {
  let site: SpaWeb;
  let server: HandlerServer;
  let renderer: Renderer;

  /** The crawler's part: the page fetched over HTTP, then handed over. */
  async function job(path: string, base = server.url): Promise<RenderJob> {
    const res = await request(base + path);
    return { url: base + path, body: new Uint8Array(await res.body.arrayBuffer()), contentType: String(res.headers['content-type']), status: res.statusCode };
  }

  /** Renders and returns what the site was asked meanwhile. */
  async function renderLogged(j: RenderJob, r = renderer): Promise<{ result: RenderResult; asked: string[] }> {
    const from = site.log.length;
    const result = await r.render(j);
    return { result, asked: site.log.slice(from).map((e) => e.path) };
  }

  before(async () => {
    site = spaWeb({ pages: 12, many: 50 });
    server = await serveHandler(site.handler);
    renderer = await launchRenderer(options());
  });

  after(async () => {
    await renderer.close();
    await server.close();
    await inProc('every browser to exit', () => ourBrowserPids().length === 0);
  });

  it('renders an app page: its words, title and router links, from sub-requests made through subFetch', async () => {
    const { result, asked } = await renderLogged(await job('/docs/3'));
    const page = rendered(result);
    assert.match(page.html, /spaword3 is the distinctive word of page 3/);
    assert.match(page.html, /<title>Doc 3: the cobalt chapter<\/title>/);
    assert.match(page.html, /<a href="\/docs\/4" data-route="">Read doc 4<\/a>/);
    assert.equal(page.url, `${server.url}/docs/3`);
    assert.deepEqual([...asked].sort(), ['/api/page/3.json', '/app.css', '/app.js']);
    assert.equal(page.requests, 3);
    assert.ok(page.bytes > 1000, `${page.bytes} bytes`);
    assert.equal(page.settledBy, 'idle', 'nothing pending: taken once still, not settleMs later');
  });

  it('never fetches the navigation itself, nor images or fonts', async () => {
    const { result, asked } = await renderLogged(await job('/'));
    assert.match(rendered(result).html, /spahome/);
    assert.ok(!asked.includes('/'), 'the page itself came from the job');
    assert.deepEqual(
      asked.filter((p) => p.startsWith('/img/') || p.startsWith('/fonts/')),
      [],
    );
  });

  it('renders a plain page, script and all', async () => {
    const page = rendered(await renderer.render(await job('/plain')));
    assert.match(page.html, /plainword/);
    assert.match(page.html, /plainscriptword added by a script/);
  });

  it('reports the URL the page routed itself to', async () => {
    const page = rendered(await renderer.render(await job('/latest')));
    assert.equal(page.url, `${server.url}/docs/12`);
    assert.match(page.html, /spaword12/);
  });

  it('takes a page whose network never goes quiet once its DOM has been quiet long enough', async () => {
    const page = rendered(await renderer.render(await job('/longpoll')));
    assert.equal(page.settledBy, 'no-mutations');
    assert.match(page.html, /longpollword/);
    assert.ok(page.ms >= 4 * 300 && page.ms < 4000, `${page.ms} ms`);
  });

  it('dismisses dialogs and closes popups, which fetch nothing', async () => {
    const { result, asked } = await renderLogged(await job('/alert'));
    assert.match(rendered(result).html, /alertword/);
    assert.ok(!asked.includes('/popup'), asked.join(' '));
  });

  it('ends a spinning page at its budget, and the pool renders the next page', async () => {
    const started = Date.now();
    const result = await renderer.render(await job('/spin'));
    assert.equal(result.kind, 'failed');
    assert.equal(result.kind === 'failed' && result.reason, 'timeout');
    assert.ok(Date.now() - started < 4000 + 1000, `${Date.now() - started} ms`);
    assert.match(rendered(await renderer.render(await job('/docs/1'))).html, /spaword1/);
  });

  it('fails a page whose sub-responses are too large, quickly and without holding them', async () => {
    const rss = process.memoryUsage().rss;
    const started = Date.now();
    const result = await renderer.render(await job('/huge'));
    assert.equal(result.kind === 'failed' && result.reason, 'too-large', JSON.stringify(result));
    assert.ok(Date.now() - started < 3000, `${Date.now() - started} ms`);
    assert.ok(process.memoryUsage().rss - rss < 100 * 1024 * 1024, 'memory stays bounded');
  });

  it('fails a page whose DOM grows past maxBytes without a request', async () => {
    const result = await renderer.render(await job('/bigdom'));
    assert.equal(result.kind === 'failed' && result.reason, 'too-large', JSON.stringify(result).slice(0, 300));
  });

  it('fails a page past maxRequests at once, and makes no request beyond', async () => {
    const { result, asked } = await renderLogged(await job('/many'));
    assert.equal(result.kind === 'failed' && result.reason, 'too-many-requests', JSON.stringify(result));
    assert.equal(asked.filter((p) => p.startsWith('/api/item/')).length, 20);
  });

  it('aborts the sub-requests the crawler refuses', async () => {
    const strict = await launchRenderer(options({ allowRequest: (url) => !url.includes('/api/') }));
    try {
      const { result, asked } = await renderLogged(await job('/docs/2'), strict);
      assert.doesNotMatch(rendered(result).html, /spaword2/);
      assert.deepEqual(
        asked.filter((p) => p.startsWith('/api/')),
        [],
      );
    } finally {
      await strict.close();
    }
  });

  it('shares no storage between pages, of the same host or another', async () => {
    const other = server.url.replace('127.0.0.1', 'localhost');
    for (const j of [await job('/storage'), await job('/storage'), await job('/storage', other)]) {
      const page = rendered(await renderer.render(j));
      assert.match(page.html, /storage-empty/, page.url);
    }
  });

  it('waits in FIFO order beyond its slots, and counts', async () => {
    const single = await launchRenderer(options({ concurrency: 1 }));
    try {
      const order: string[] = [];
      const jobs = await Promise.all(['/docs/5', '/docs/6', '/docs/7'].map((p) => job(p)));
      const all = jobs.map((j) => single.render(j).then((r) => order.push(j.url.slice(server.url.length)) && r));
      const during = single.stats();
      assert.equal(during.waiting, 2);
      assert.equal(during.rendering, 1);
      assert.ok(during.browserRssBytes > 0);
      await Promise.all(all);
      assert.deepEqual(order, ['/docs/5', '/docs/6', '/docs/7']);
      const s = single.stats();
      assert.equal(s.rendered, 3);
      assert.equal(s.failed, 0);
      assert.equal(s.waiting + s.rendering, 0);
      assert.ok(s.totalMs > 0);
      assert.ok(s.browserRssBytes > 50 * 1024 * 1024, `${s.browserRssBytes} bytes`);
    } finally {
      await single.close();
    }
  });

  it('fails the pages of a browser that dies, and launches another for the next page', async () => {
    const before = new Set(ourBrowserPids());
    const fragile = await launchRenderer(options({ timeoutMs: 10_000 }));
    try {
      const [pid] = ourBrowserPids().filter((p) => !before.has(p));
      assert.ok(pid !== undefined, 'its browser is our child');
      const running = fragile.render(await job('/spin'));
      assert.equal(fragile.stats().rendering, 1, 'the page holds its slot from the call on');
      process.kill(pid, 'SIGKILL');
      const result = await running;
      assert.equal(result.kind === 'failed' && result.reason, 'browser', JSON.stringify(result));
      assert.match(rendered(await fragile.render(await job('/docs/4'))).html, /spaword4/);
      assert.equal(fragile.stats().restarts, 1);
    } finally {
      await fragile.close();
    }
  });

  it('gives the browser up after launches that keep failing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-render-'));
    const wrapper = join(dir, 'chromium');
    writeFileSync(wrapper, `#!/bin/sh\nexec ${CHROMIUM} "$@"\n`, { mode: 0o755 });
    const before = new Set(ourBrowserPids());
    const doomed = await launchRenderer(options({ browserPath: wrapper }));
    try {
      const [pid] = ourBrowserPids().filter((p) => !before.has(p));
      assert.ok(pid !== undefined);
      chmodSync(wrapper, 0o644); // from now on, no launch can succeed
      process.kill(pid, 'SIGKILL');
      await inProc('the browser to be gone', () => !ourBrowserPids().includes(pid));
      const page = await job('/docs/1');
      for (let i = 0; i < 3; i++) {
        const result = await doomed.render(page);
        assert.equal(result.kind === 'failed' && result.reason, 'browser');
        assert.match(result.kind === 'failed' ? result.detail : '', /apt-get install chromium/);
      }
      const last = await doomed.render(page);
      assert.match(last.kind === 'failed' ? last.detail : '', /gave the browser up after 3 failed launches/);
      assert.equal(doomed.stats().restarts, 0);
    } finally {
      await doomed.close();
      rmSync(dir, { recursive: true });
    }
  });

  it('fails a page whose tab crashes, and renders the next in a new one', async () => {
    const before = new Set(ourBrowserPids());
    const fragile = await launchRenderer(options({ timeoutMs: 10_000 }));
    try {
      const [pid] = ourBrowserPids().filter((p) => !before.has(p));
      assert.ok(pid !== undefined);
      const chromes = new Set(renderersBelow(pid)); // the browser's own (WebUI) renderer
      const running = fragile.render(await job('/spin'));
      // The page's renderer is the one that spins: it has used 200 ms of CPU or more.
      await inProc("the page's renderer to spin", () => renderersBelow(pid).some((r) => !chromes.has(r) && cpuMs(r) >= 200));
      for (const renderer of renderersBelow(pid)) if (!chromes.has(renderer)) process.kill(renderer, 'SIGKILL');
      const result = await running;
      assert.equal(result.kind === 'failed' && result.reason, 'crashed', JSON.stringify(result));
      assert.match(rendered(await fragile.render(await job('/docs/8'))).html, /spaword8/);
      assert.equal(fragile.stats().restarts, 0);
    } finally {
      await fragile.close();
    }
  });

  it('fails the pages rendering and waiting when it is closed', async () => {
    const closing = await launchRenderer(options({ concurrency: 1, timeoutMs: 10_000 }));
    const spin = await job('/spin');
    const results = [closing.render(spin), closing.render(spin), closing.render(spin)];
    assert.deepEqual([closing.stats().rendering, closing.stats().waiting], [1, 2], 'the first page holds the slot, the others wait');
    const started = Date.now();
    await closing.close();
    for (const result of await Promise.all(results)) assert.equal(result.kind, 'failed');
    assert.ok(Date.now() - started < 3000, `${Date.now() - started} ms`);
    assert.equal((await closing.render(spin)).kind, 'failed');
  });

  it('ends a page its caller aborts', async () => {
    const controller = new AbortController();
    const running = renderer.render(await job('/spin'), controller.signal);
    controller.abort();
    const result = await running;
    assert.equal(result.kind === 'failed' && result.reason, 'timeout');
    assert.ok(result.ms < 1000);
  });
});

describe('finding the browser', () => {
  it('says how to install one when there is none', async () => {
    assert.equal(await findBrowser('/nowhere/chromium'), undefined);
    const plain = join(mkdtempSync(join(tmpdir(), 'trawl-render-')), 'chromium');
    writeFileSync(plain, '#!/bin/sh\n', { mode: 0o644 });
    assert.equal(await findBrowser(plain), undefined, 'not executable');
    rmSync(dirname(plain), { recursive: true });
    assert.equal(await findBrowser(CHROMIUM), CHROMIUM);
    await assert.rejects(launchRenderer(options({ browserPath: '/nowhere/chromium' })), (error: unknown) => {
      assert.ok(error instanceof BrowserUnavailable);
      assert.match(error.message, /\/nowhere\/chromium/);
      assert.match(error.message, /apt-get install chromium/);
      assert.match(error.message, /render\.browserPath/);
      return true;
    });
  });

  it('refuses an executable that is not a browser', async () => {
    await assert.rejects(
      launchRenderer(options({ browserPath: '/bin/false' })),
      (error: unknown) => error instanceof BrowserUnavailable && /does not start/.test(error.message),
    );
  });
});
