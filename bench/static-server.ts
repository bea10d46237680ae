/**
 * A static file server for benchmarks, run as its own process (like nginx would be) so that it
 * does not share the crawler's event loop. Files are read once into memory.
 *   npx tsx bench/static-server.ts ROOT [HOST]   → prints "listening http://HOST:PORT/"
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, relative } from 'node:path';

const root = process.argv[2];
const host = process.argv[3] ?? '127.0.0.1';
if (!root) {
  console.error('usage: static-server.ts ROOT [HOST]');
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
const server = createServer((req, res) => {
  let path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
  if (path.endsWith('/')) path += 'index.html';
  const body = files.get(path);
  if (!body) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    return res.end('not found');
  }
  res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream', 'content-length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 30_000;
server.listen(0, host, () => console.log(`listening http://${host}:${(server.address() as AddressInfo).port}/ (${files.size} files)`));
