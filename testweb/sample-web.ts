/**
 * The demo's sample web: the documentation of the npm packages installed beside Trawl, rendered
 * as three small docs sites on three loopback addresses. Real prose, offline, on any machine.
 *
 * Each package's README (and any docs/*.md it ships) becomes an overview page plus one page per
 * `## section`; dependency links cross between hosts. A README's link to another of its package's
 * Markdown files leads to that file's page; a link to anything else in the package (sources,
 * LICENSE, images, folders: not rendered here) is no longer a link, so that the only failures a
 * crawl meets are the deliberate ones (DELIBERATE, below). Every site has a robots.txt (which
 * disallows /drafts/), a sitemap and an old URL scheme that redirects (/packages/NAME → /pkg/NAME/).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, posix, relative } from 'node:path';
import { marked } from 'marked';

export type SampleWeb = { readonly sites: readonly string[]; readonly pageCount: number; close(): Promise<void> };

/** A Markdown file of a package, rendered: `file` is its path in the package (posix), which its relative links start from. */
type Doc = { pkg: string; file: string; slug: string; title: string; intro: string; sections: { slug: string; title: string; md: string }[] };
type Pkg = { name: string; description: string; version: string; deps: string[]; docs: Doc[] };

/**
 * The failures the sample web has on purpose, each linked from one site's home page (site: its
 * index) and explained — what `trawl demo`'s dashboard shows, and all it shows
 * (testweb/sample-web.test.ts crawls it and counts them):
 * - two **broken links of the sites**: a package that was removed (404) and one withdrawn (410 Gone);
 * - two **failures of the crawl**: a page whose backend is down (500 at every attempt: retried, then
 *   given up) and one that never answers (the request times out, at every attempt).
 * The two failures are on two sites: a host whose requests fail 5 times in a row is suspended for
 * minutes (perHost.suspendAfterErrors), and their retries come last, when nothing else is left.
 */
export const DELIBERATE = [
  { site: 0, path: '/pkg/left-pad/', text: 'left-pad', why: 'removed package', status: 404 },
  { site: 1, path: '/pkg/request/', text: 'request', why: 'withdrawn package', status: 410 },
  { site: 2, path: '/build-status', text: 'build status', why: 'its backend is down', status: 500 },
  { site: 1, path: '/live-downloads', text: 'live download counts', why: 'never answers', status: 'timeout' },
] as const;

const SITE_NAMES = ['Network & Data Docs', 'Tooling Docs', 'Web & Parsing Docs'];
const SKIP = /changelog|license|history|security|contributing|code_of_conduct|authors|funding/i;
const MAX_DOCS_PER_PACKAGE = 40;

export async function startSampleWeb(opts: { modulesDir: string; addresses?: readonly string[] }): Promise<SampleWeb> {
  const pkgs = readPackages(opts.modulesDir);
  const addresses = opts.addresses ?? (await loopbackAddresses());
  const servers: Server[] = [];
  const bases: string[] = [];
  // Start the three servers first: pages link across sites, so every site needs every base URL.
  for (let i = 0; i < 3; i++) {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, addresses[i] ?? '127.0.0.1', () => resolve());
    });
    const a = server.address() as AddressInfo;
    servers.push(server);
    bases.push(`http://${a.address}:${a.port}`);
  }
  const siteOf = (name: string) => [...name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % 3;
  const hrefOf = (name: string, from: number) => (siteOf(name) === from ? `/pkg/${name}/` : `${bases[siteOf(name)]}/pkg/${name}/`);
  const byName = new Map(pkgs.map((p) => [p.name, p]));
  let pageCount = 0;

  servers.forEach((server, site) => {
    const mine = pkgs.filter((p) => siteOf(p.name) === site);
    const pages = new Map<string, string>();
    const layout = (title: string, body: string) =>
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>` +
      `<meta name="viewport" content="width=device-width, initial-scale=1"></head><body>` +
      `<header><nav><a href="/">${SITE_NAMES[site]}</a> · ${bases
        .map((b, i) => (i === site ? '' : `<a href="${b}/">${SITE_NAMES[i]}</a>`))
        .filter(Boolean)
        .join(' · ')}</nav></header>` +
      `<main>${body}</main><footer><p>Sample docs served by trawl demo from installed npm packages.</p></footer></body></html>`;

    pages.set(
      '/',
      layout(
        SITE_NAMES[site]!,
        `<h1>${SITE_NAMES[site]}</h1><p>Documentation of ${mine.length} packages.</p><ul>` +
          mine.map((p) => `<li><a href="/pkg/${p.name}/">${esc(p.name)}</a> — ${esc(p.description)}</li>`).join('') +
          `</ul><p>Older links: <a href="/packages/${mine[0]?.name ?? 'none'}">${esc(mine[0]?.name ?? '')} (old URL)</a>, ` +
          DELIBERATE.filter((d) => d.site === site)
            .map((d) => `<a href="${d.path}">${esc(d.text)}</a> (${esc(d.why)}), `)
            .join('') +
          `<a href="/drafts/roadmap">roadmap draft</a>.</p>`,
      ),
    );
    for (const p of mine) {
      const pageOf = docPages(p);
      for (const doc of p.docs) {
        const root = pageOf.get(doc.file)!;
        const render = (md: string) => renderDoc(md, doc.file, pageOf);
        const deps = p.deps.filter((d) => byName.has(d));
        const otherDocs = p.docs
          .filter((d) => d !== doc)
          .map((d) => `<li><a href="${d.slug ? `/pkg/${p.name}/doc/${d.slug}/` : `/pkg/${p.name}/`}">${esc(d.title)}</a></li>`);
        pages.set(
          root,
          layout(
            `${doc.title} — ${p.name}`,
            `<h1>${esc(doc.title)}</h1><p class="meta">${esc(p.name)} ${esc(p.version)} — ${esc(p.description)}</p>${render(doc.intro)}` +
              (doc.sections.length
                ? `<h2>Contents</h2><ol>${doc.sections.map((s) => `<li><a href="${root}${s.slug}">${esc(s.title)}</a></li>`).join('')}</ol>`
                : '') +
              (otherDocs.length ? `<h2>More documents</h2><ul>${otherDocs.join('')}</ul>` : '') +
              (deps.length ? `<h2>Dependencies</h2><ul>${deps.map((d) => `<li><a href="${hrefOf(d, site)}">${esc(d)}</a></li>`).join('')}</ul>` : ''),
          ),
        );
        doc.sections.forEach((s, i) => {
          const prev = doc.sections[i - 1];
          const next = doc.sections[i + 1];
          pages.set(
            `${root}${s.slug}`,
            layout(
              `${s.title} — ${doc.title} — ${p.name}`,
              `<p><a href="${root}">${esc(doc.title)}</a></p><h1>${esc(s.title)}</h1>${render(s.md)}<p>` +
                (prev ? `<a href="${root}${prev.slug}">← ${esc(prev.title)}</a> ` : '') +
                (next ? `<a href="${root}${next.slug}">${esc(next.title)} →</a>` : '') +
                '</p>',
            ),
          );
        });
      }
    }
    pages.set('/drafts/roadmap', layout('Roadmap draft', '<h1>Roadmap draft</h1><p>Not for search engines: robots.txt disallows /drafts/.</p>'));
    pageCount += pages.size;
    const sitemap =
      `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
      [...pages.keys()]
        .filter((k) => !k.startsWith('/drafts/'))
        .map((k) => `<url><loc>${bases[site]}${k}</loc></url>`)
        .join('') +
      '</urlset>';

    server.on('request', (req, res) => {
      const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
      if (path === '/robots.txt') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        return res.end(`# ${SITE_NAMES[site]}\nUser-agent: *\nDisallow: /drafts/\n\nSitemap: ${bases[site]}/sitemap.xml\n`);
      }
      if (path === '/sitemap.xml') {
        res.writeHead(200, { 'content-type': 'application/xml; charset=utf-8' });
        return res.end(sitemap);
      }
      const old = /^\/packages\/([^/]+)\/?$/.exec(path);
      if (old) {
        res.writeHead(301, { location: `/pkg/${old[1]}/` });
        return res.end();
      }
      const deliberate = DELIBERATE.find((d) => d.site === site && d.path === path);
      if (deliberate?.status === 'timeout') return; // (held open: the crawler's timeout ends it; close() ends what is left)
      if (deliberate) {
        res.writeHead(deliberate.status, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(layout(`${deliberate.status}`, `<h1>${deliberate.status}</h1><p>${esc(deliberate.text)}: ${esc(deliberate.why)}.</p>`));
      }
      const body = pages.get(path);
      if (!body) {
        res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(layout('Not found', '<h1>Not found</h1><p>This page does not exist.</p>'));
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(body);
    });
  });

  return {
    sites: bases.map((b) => `${b}/`),
    pageCount,
    close: async () => {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.close(() => resolve());
              s.closeAllConnections();
            }),
        ),
      );
    },
  };
}

/** Three distinct loopback addresses when the system routes 127.0.0.0/8 (Linux does), else 127.0.0.1 thrice. */
async function loopbackAddresses(): Promise<string[]> {
  const candidates = ['127.0.0.2', '127.0.0.3', '127.0.0.4'];
  for (const a of candidates) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(0, a, () => s.close(() => resolve(true)));
    });
    if (!ok) return ['127.0.0.1', '127.0.0.1', '127.0.0.1'];
  }
  return candidates;
}

function readPackages(modulesDir: string): Pkg[] {
  const dirs: string[] = [];
  for (const entry of readdirSync(modulesDir)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) for (const sub of readdirSync(join(modulesDir, entry))) dirs.push(join(modulesDir, entry, sub));
    else dirs.push(join(modulesDir, entry));
  }
  const pkgs: Pkg[] = [];
  for (const dir of dirs) {
    const pj = join(dir, 'package.json');
    if (!existsSync(pj)) continue;
    const meta = JSON.parse(readFileSync(pj, 'utf8')) as { name?: string; description?: string; version?: string; dependencies?: Record<string, string> };
    if (!meta.name || meta.name.startsWith('@types/')) continue;
    const files = markdownFiles(dir).slice(0, MAX_DOCS_PER_PACKAGE);
    const docs = files.map((f) => toDoc(meta.name!, relative(dir, f).split('\\').join('/'), readFileSync(f, 'utf8'))).filter((d): d is Doc => d !== undefined);
    if (!docs.length) continue;
    // The README is the package's front page.
    docs.sort((a, b) => (a.slug === '' ? -1 : b.slug === '' ? 1 : a.slug.localeCompare(b.slug)));
    pkgs.push({
      name: meta.name.replace('/', '__'),
      description: meta.description ?? '',
      version: meta.version ?? '',
      deps: Object.keys(meta.dependencies ?? {}).map((d) => d.replace('/', '__')),
      docs,
    });
  }
  return pkgs.sort((a, b) => a.name.localeCompare(b.name));
}

function markdownFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number) => {
    for (const e of readdirSync(d)) {
      if (e === 'node_modules' || e.startsWith('.')) continue;
      const p = join(d, e);
      const st = statSync(p);
      if (st.isDirectory() && depth < 3) walk(p, depth + 1);
      else if (st.isFile() && /\.md$/i.test(e) && !SKIP.test(e) && st.size > 600 && st.size < 400_000) out.push(p);
    }
  };
  walk(dir, 0);
  return out.sort();
}

function toDoc(pkg: string, file: string, md: string): Doc | undefined {
  const isReadme = /^readme\.md$/i.test(file);
  const parts = md.split(/^## +/m);
  const intro = parts[0] ?? '';
  const h1 = /^# +(.+)$/m.exec(intro)?.[1]?.trim();
  const sections = parts.slice(1).map((chunk) => {
    const nl = chunk.indexOf('\n');
    const title = stripMd(nl < 0 ? chunk : chunk.slice(0, nl)).slice(0, 120) || 'Section';
    return { title, slug: '', md: nl < 0 ? '' : chunk.slice(nl + 1) };
  });
  const used = new Set<string>();
  for (const s of sections) {
    let slug = slugify(s.title) || 'section';
    while (used.has(slug)) slug += '-2';
    used.add(slug);
    s.slug = slug;
  }
  const title = isReadme ? `${pkg}: ${stripMd(h1 ?? pkg)}` : stripMd(h1 ?? file.replace(/\.md$/i, ''));
  return {
    pkg,
    file,
    slug: isReadme ? '' : slugify(file.replace(/\.md$/i, '')),
    title: title.slice(0, 150),
    intro: intro.replace(/^# .+$/m, ''),
    sections,
  };
}

/** Each rendered Markdown file of a package (its path in the package) → the path of its page. */
function docPages(p: Pkg): Map<string, string> {
  return new Map(p.docs.map((d) => [d.file, d.slug ? `/pkg/${p.name}/doc/${d.slug}/` : `/pkg/${p.name}/`]));
}

/** A link's target with a scheme (`https:`, `mailto:`…) or a host of its own (`//cdn…`): not a file of the package. */
const ELSEWHERE = /^([a-z][a-z0-9+.-]*:|\/\/)/i;
/** The `href` of an `<a>` or `<area>` element, quoted or not. */
const HREF = /(<(?:a|area)\b[^>]*?)\s+href\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/gi;

/**
 * Markdown of the package file `file` as HTML. The READMEs' own HTML is kept (it is what these
 * pages really look like); scripts are not. Links into the package are followed as GitHub would:
 * from the file's folder (a leading `/` from the package's root). One to a Markdown file rendered
 * here leads to its page; one to any other file of the package — or out of it — loses its href
 * (an `<a>` without one is no link), since the sample web serves no such file.
 */
function renderDoc(md: string, file: string, pageOf: ReadonlyMap<string, string>): string {
  const html = (marked.parse(md, { async: false }) as string).replace(/<script[\s\S]*?<\/script>/gi, '');
  return html.replace(HREF, (whole, element: string, quoted: string) => {
    const href = quoted.replace(/^["']|["']$/g, '').trim();
    if (href.startsWith('#') || ELSEWHERE.test(href)) return whole;
    const path = decodeURIComponentSafe(href.split(/[?#]/)[0]!);
    const target = posix.normalize(path.startsWith('/') ? path.slice(1) : posix.join(posix.dirname(file), path));
    const page = pageOf.get(target) ?? pageOf.get(posix.join(target, 'README.md'));
    return page && !target.startsWith('..') ? `${element} href="${page}"` : element;
  });
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function stripMd(s: string): string {
  return s
    .replace(/<[^>]+>/g, '')
    .replace(/\[?!\[[^\]]*\](\([^)]*\)|\[[^\]]*\])\]?(\([^)]*\)|\[[^\]]*\])?/g, '') // badges: images, linked or not
    .replace(/\[([^\]]*)\](\([^)]*\)|\[[^\]]*\])/g, '$1') // links keep their text
    .replace(/[`*_]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function slugify(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60);
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
