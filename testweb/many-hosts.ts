/**
 * A web of many hosts on loopback, for crawls shared by several workers (issue 22): `hosts`
 * servers on 127.0.0.1, each a host of its own (host:port is the politeness key), each with a home
 * page linking its `pages` pages and the next hosts' homes, every page with a word of its own. Each
 * server keeps its own log — when every request arrived and when its response ended, and how many
 * were in flight at once — so that a test asserts politeness from what the hosts saw, not from
 * what the crawler says it did.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type HostRequest = { readonly path: string; readonly start: number; end?: number };

export type FakeHost = {
  readonly origin: string;
  /** `host:port`, as the crawler keys it. */
  readonly host: string;
  readonly requests: HostRequest[];
  /** The most requests in flight at once. */
  readonly maxInFlight: number;
};

export type ManyHosts = {
  readonly hosts: readonly FakeHost[];
  /** Every page's URL (what a complete crawl stores), robots.txt and the 404 of /sitemap.xml aside. */
  readonly pages: readonly string[];
  /** The word unique to a page (`hNpM`), to search for. */
  wordOf(url: string): string;
  close(): Promise<void>;
};

export type ManyHostsOptions = {
  readonly hosts: number;
  /** Pages per host besides its home. */
  readonly pages: number;
  /** How long each response takes (ms): requests stay in flight long enough to overlap if allowed to. */
  readonly delayMs?: number;
};

export async function startManyHosts(o: ManyHostsOptions): Promise<ManyHosts> {
  const servers: Server[] = [];
  const hosts: FakeHost[] = [];
  for (let h = 0; h < o.hosts; h++) {
    const state = { requests: [] as HostRequest[], inFlight: 0, maxInFlight: 0 };
    const server = createServer((req, res) => {
      const r: HostRequest = { path: req.url ?? '/', start: Date.now() };
      state.requests.push(r);
      state.maxInFlight = Math.max(state.maxInFlight, ++state.inFlight);
      setTimeout(() => {
        const { status, type, body } = answer(h, r.path);
        // The end is taken before the answer leaves: the crawler cannot have it sooner, so a gap
        // measured from here to the next request's arrival is never longer than the real one.
        r.end = Date.now();
        state.inFlight--;
        res.writeHead(status, { 'content-type': type });
        res.end(body);
      }, o.delayMs ?? 0);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    const { port } = server.address() as AddressInfo;
    hosts.push({
      origin: `http://127.0.0.1:${port}`,
      host: `127.0.0.1:${port}`,
      requests: state.requests,
      get maxInFlight() {
        return state.maxInFlight;
      },
    });
  }
  const word = (h: number, p: number) => `h${h}p${p}word`;
  const link = (href: string, text: string) => `<a href="${href}">${text}</a>`;
  function answer(h: number, path: string): { status: number; type: string; body: string } {
    if (path === '/robots.txt') return { status: 200, type: 'text/plain', body: 'User-agent: *\nAllow: /\n' };
    const m = /^\/(?:p\/(\d+))?$/.exec(path);
    const p = m ? (m[1] === undefined ? 0 : Number(m[1])) : -1;
    if (p < 0 || p > o.pages) return { status: 404, type: 'text/plain', body: 'not found' };
    const links =
      p === 0
        ? [
            ...Array.from({ length: o.pages }, (_, i) => link(`/p/${i + 1}`, `page ${i + 1}`)),
            ...[1, 2].map((k) => link(`${hosts[(h + k) % o.hosts]!.origin}/`, `host ${(h + k) % o.hosts}`)),
          ]
        : [link('/', 'home'), link(`/p/${(p % o.pages) + 1}`, 'next')];
    const body =
      `<!doctype html><html lang="en"><head><title>Host ${h} page ${p}</title></head>` +
      `<body><p>${word(h, p)} is on host ${h}, page ${p} of the shared crawl.</p>${links.join(' ')}</body></html>`;
    return { status: 200, type: 'text/html; charset=utf-8', body };
  }
  const pages = hosts.flatMap((x) => [`${x.origin}/`, ...Array.from({ length: o.pages }, (_, i) => `${x.origin}/p/${i + 1}`)]);
  return {
    hosts,
    pages,
    wordOf(url: string) {
      const u = new URL(url);
      const h = hosts.findIndex((x) => x.host === u.host);
      return word(h, u.pathname === '/' ? 0 : Number(u.pathname.slice(3)));
    },
    close: () =>
      Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.close(() => resolve());
              s.closeAllConnections();
            }),
        ),
      ).then(() => undefined),
  };
}
