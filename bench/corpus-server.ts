/**
 * Serves a documentation corpus from loopback for the benchmarks: Debian's nginx (apt-get install
 * nginx-light), one worker process, on one or more addresses; or our own static server when nginx
 * is missing. Either runs in its own process, so the crawler's figures are the crawler's alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export type CorpusServer = { server: ChildProcess; bases: string[] };

/** Our own static server, in its own process. */
export async function startNodeServer(dir: string): Promise<CorpusServer> {
  const server = spawn(process.execPath, ['--import', 'tsx', new URL('./static-server.ts', import.meta.url).pathname, dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const base = await new Promise<string>((resolve) =>
    server.stdout!.on('data', (d: Buffer) => {
      const m = /listening (\S+)/.exec(d.toString());
      if (m) resolve(m[1]!);
    }),
  );
  return { server, bases: [base] };
}

/**
 * Debian's nginx (apt-get install nginx-light), one worker, on a free loopback port. `autoindex`:
 * every directory answered by its listing, with a stock server's MIME types (a tree of PDFs, say,
 * crawled from its root) — the index file is a name no file has, so that a folder's index.html
 * (texlive/ has one that links to neither tlbuild/ nor its PDF) is a file of the listing like any
 * other and hides no directory.
 */
export async function startNginx(dir: string, hostCount: number, options: { readonly autoindex?: boolean } = {}): Promise<CorpusServer> {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const p = (probe.address() as AddressInfo).port;
      probe.close(() => resolve(p));
    });
  });
  const addresses = hostCount > 0 ? Array.from({ length: hostCount }, (_, i) => `127.0.1.${i + 1}`) : ['127.0.0.1'];
  const conf = join(mkdtempSync(join(tmpdir(), 'trawl-nginx-')), 'nginx.conf');
  const types = options.autoindex
    ? existsSync('/etc/nginx/mime.types')
      ? 'include /etc/nginx/mime.types;'
      : 'types { text/html html htm; text/plain txt; application/pdf pdf; image/png png; text/css css; application/zip zip; }'
    : 'types { text/html html htm; text/css css; text/plain txt; application/javascript js; image/svg+xml svg; image/png png; }';
  const listing = options.autoindex ? ' autoindex on; index .trawl-bench-listing-only;' : '';
  writeFileSync(
    conf,
    `worker_processes 1; daemon off; pid ${conf}.pid; error_log stderr crit;
events { worker_connections 1024; }
http { access_log off; sendfile on; tcp_nopush on; keepalive_requests 1000000; keepalive_timeout 60s;
  ${types}
  default_type application/octet-stream; charset utf-8;
  server { ${addresses.map((a) => `listen ${a}:${port};`).join(' ')} root ${dir};${listing} } }\n`,
  );
  const server = spawn('/usr/sbin/nginx', ['-c', conf, '-p', dirname(conf)], { stdio: ['ignore', 'inherit', 'inherit'] });
  const bases = addresses.map((a) => `http://${a}:${port}/`);
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(bases[0]!, { method: 'HEAD' });
      return { server, bases };
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error('nginx did not start');
}
