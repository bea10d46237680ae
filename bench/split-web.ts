/**
 * One documentation corpus split over many hosts, for bench/scale: each file belongs to one of
 * `hosts` loopback addresses (127.0.0.2, 127.0.0.3, … by a hash of its path) and is served there
 * only. Run as its own process, so that serving costs nothing of the crawlers' event loops:
 *   npx tsx bench/split-web.ts ROOT [HOSTS] [LATENCY_MS]   → prints "listening PORT FILES" when ready
 *
 * LATENCY_MS (default 0) holds every answer that long before it is sent, as a server across the
 * internet takes: a crawl then waits on the web rather than on its CPU, as real crawls mostly do.
 *
 * One server listens on every address, on the same port. Files are read into memory once, before
 * the port is announced, and the links of each HTML file (`href`, `src`) that name a file of the
 * corpus are rewritten to that file's own host — so a link costs one request, as on a real web of
 * many hosts. A path asked of the wrong host (a link the rewriting missed: a meta refresh, a link
 * built by a script) is answered with a 301 to its host.
 */
import { addressOf, ownerOf } from './split-layout.ts';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, relative } from 'node:path';

const root = process.argv[2];
const hostCount = Number(process.argv[3] ?? 16);
const latencyMs = Number(process.argv[4] ?? 0);
if (!root || !(hostCount >= 1 && hostCount <= 250) || !(latencyMs >= 0)) {
  console.error('usage: split-web.ts ROOT [HOSTS (1–250)] [LATENCY_MS]');
  process.exit(2);
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};
const files = new Map<string, Buffer>();
const walk = (dir: string) => {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) walk(p);
    else files.set(`/${relative(root, p).split('\\').join('/')}`, readFileSync(p));
  }
};
walk(root);

const answer = (port: number) => (req: IncomingMessage, res: ServerResponse) => {
  const raw = (req.url ?? '/').split('?')[0]!;
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    path = raw;
  }
  if (path.endsWith('/')) path += 'index.html';
  const body = files.get(path);
  if (!body) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    return res.end('not found');
  }
  const owner = addressOf(ownerOf(path, hostCount));
  if (req.socket.localAddress !== owner) {
    res.writeHead(301, { location: `http://${owner}:${port}${req.url ?? '/'}` });
    return res.end();
  }
  res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream', 'content-length': body.length });
  res.end(body);
};

// The same port on every address: bind the first on a free port, the others on it.
let port = 0;
const servers = [];
for (let i = 0; i < hostCount; i++) {
  const server = createServer((req, res) => (latencyMs ? setTimeout(() => answer(port)(req, res), latencyMs) : answer(port)(req, res)));
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, addressOf(i), () => resolve());
  });
  if (i === 0) port = (server.address() as AddressInfo).port;
  servers.push(server);
}

// Links rewritten to their file's host, once.
const LINK = /\b(href|src)="([^"]*)"/g;
const BASE = 'http://corpus.invalid';
for (const [path, body] of files) {
  if (extname(path) !== '.html') continue;
  const html = body.toString('utf8').replace(LINK, (whole, attr: string, value: string) => {
    let u: URL;
    try {
      u = new URL(value.replace(/&amp;/g, '&'), BASE + path);
    } catch {
      return whole;
    }
    if (u.origin !== BASE) return whole;
    let target: string;
    try {
      target = decodeURIComponent(u.pathname);
    } catch {
      return whole;
    }
    if (target.endsWith('/')) target += 'index.html';
    if (!files.has(target)) return whole;
    return `${attr}="http://${addressOf(ownerOf(target, hostCount))}:${port}${u.pathname}${u.search}${u.hash}"`;
  });
  files.set(path, Buffer.from(html, 'utf8'));
}
console.log(`listening ${port} ${files.size}`);
