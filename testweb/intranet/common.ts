/** What every intranet host shares: the request log, the loopback listener, the HTML of a page. */
import { timingSafeEqual } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** The intranet's hosts, by role. */
export type SiteName = 'basic' | 'digest' | 'bearer' | 'form' | 'other' | 'tls' | 'selfSigned';

/** One request a host received: enough to tell where credentials went. */
export type IntranetRequest = {
  /** Which of the intranet's hosts answered. */
  readonly site: SiteName;
  /** The Host header as received (e.g. `127.0.0.2:41234`, or a name the proxy resolved). */
  readonly host: string;
  readonly path: string;
  readonly method: string;
  readonly at: number;
  /** The Authorization header's value, when one came. */
  readonly authorization?: string;
  /** The Cookie header's value, when one came. */
  readonly cookie?: string;
};

/** A running server: its origin, its `address:port`, how to stop it. */
export type Listening = { readonly url: string; readonly host: string; readonly address: string; close(): Promise<void> };

/** Wraps a handler so that every request lands in `logs` (each array gets the same entry) first. */
export function logged(site: SiteName, logs: readonly IntranetRequest[][], handler: RequestListener): RequestListener {
  return (req, res) => {
    const entry: IntranetRequest = {
      site,
      host: req.headers.host ?? '',
      path: req.url ?? '/',
      method: req.method ?? 'GET',
      at: Date.now(),
      ...(req.headers.authorization !== undefined ? { authorization: req.headers.authorization } : {}),
      ...(req.headers.cookie !== undefined ? { cookie: req.headers.cookie } : {}),
    };
    for (const log of logs) log.push(entry);
    handler(req, res);
  };
}

/** Listens on `address` (port 0) and returns the origin; `close()` also ends kept-alive and tunnelled sockets. */
export async function listen(server: Server, address: string, scheme: 'http' | 'https' = 'http'): Promise<Listening> {
  // Sockets handed over by CONNECT leave the server's own bookkeeping: track every socket here.
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, address, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = `${address}:${port}`;
  return {
    url: `${scheme}://${host}`,
    host,
    address,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      }),
  };
}

/** An HTTP server on loopback around a handler. */
export function serve(handler: RequestListener, address: string): Promise<Listening> {
  return listen(createHttpServer(handler), address);
}

/**
 * The loopback addresses the hosts listen on: one each when the system routes 127.0.0.0/8 (Linux
 * does) — so that cookies, which ignore ports (RFC 6265 §8.5), really are per host — else 127.0.0.1
 * for all, told apart by port only (`distinctHosts` false).
 */
export async function loopbackAddresses(count: number): Promise<{ addresses: string[]; distinct: boolean }> {
  const candidates = Array.from({ length: count }, (_, i) => `127.0.0.${i + 2}`);
  for (const a of candidates) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = createHttpServer();
      s.once('error', () => resolve(false));
      s.listen(0, a, () => s.close(() => resolve(true)));
    });
    if (!ok) return { addresses: candidates.map(() => '127.0.0.1'), distinct: false };
  }
  return { addresses: candidates, distinct: true };
}

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** A small HTML page: a title, its words in a sentence, links (href → text). */
export function page(title: string, words: string, links: readonly (readonly [string, string])[] = [], extra = ''): string {
  const nav = links.map(([href, text]) => `<li><a href="${escapeHtml(href)}">${escapeHtml(text)}</a></li>`).join('');
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
    `<body><h1>${escapeHtml(title)}</h1><p>This page talks about ${escapeHtml(words)}.</p>${extra}<ul>${nav}</ul></body></html>`
  );
}

/** Sends an HTML page. */
export function sendHtml(res: ServerResponse, status: number, html: string, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html), ...headers });
  res.end(html);
}

/** The path of a request without its query. */
export const pathOf = (req: IncomingMessage): string => (req.url ?? '/').split('?')[0]!;

/** Reads a request body up to `max` bytes (a form post, never large). */
export async function readBody(req: IncomingMessage, max = 16 * 1024): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > max) return undefined;
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A constant-time comparison of two strings (credentials are compared the way a real server should). */
export function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
