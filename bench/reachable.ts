/**
 * The pages of a corpus on disk that a crawl from `seed` should find: a breadth-first walk over the
 * HTML files' links, independent of the crawler (its own reading of the files, links resolved as a
 * browser would, no cap on links per page). A `<meta http-equiv="refresh">` stub forwards to its
 * target, as the crawler treats it, and is not itself a page; `dir/` is `dir/index.html`; query
 * strings and fragments are dropped (a static corpus serves the same file for them). A page that asks
 * not to be indexed (`<meta name="robots" content="noindex">`, as mdBook's print.html pages do) is
 * reachable, and its links are followed, but it is no page a crawl should index: it is told apart.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { decodeBody, parseHtml } from '../crawler/parse/index.ts';

const ORIGIN = 'http://corpus.invalid';

/** The corpus-relative path (`a/b.html`) a URL of the corpus names, or undefined when it names nothing there. */
export function corpusPath(url: string, root: string, origin = ORIGIN): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.origin !== new URL(origin).origin) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(u.pathname).replace(/^\/+/, '');
  } catch {
    return undefined;
  }
  if (path === '' || path.endsWith('/')) path += 'index.html';
  const file = join(root, path);
  if (!file.startsWith(root) || !existsSync(file)) return undefined;
  if (statSync(file).isDirectory()) return existsSync(join(file, 'index.html')) ? relative(root, join(file, 'index.html')) : undefined;
  return relative(root, file);
}

/** Every page reachable from `seed` (a corpus-relative path) that may be indexed: their paths. */
export function reachablePages(root: string, seed: string): Set<string> {
  return reachable(root, seed).pages;
}

/** The pages reachable from `seed`: those that may be indexed, and those that ask not to be (robots noindex). */
export function reachable(root: string, seed: string): { pages: Set<string>; noindex: Set<string> } {
  const pages = new Set<string>();
  const noindex = new Set<string>();
  const visited = new Set<string>();
  const queue = [seed];
  for (let i = 0; i < queue.length; i++) {
    const path = queue[i]!;
    if (visited.has(path)) continue;
    visited.add(path);
    if (!/\.html?$/i.test(path)) continue;
    const url = `${ORIGIN}/${path.split('/').map(encodeURIComponent).join('/')}`;
    const page = parseHtml(decodeBody(readFileSync(join(root, path)), 'text/html').text, url, 'trawlbot', Number.MAX_SAFE_INTEGER);
    const next = (link: string) => {
      const p = corpusPath(link, root);
      if (p !== undefined && !visited.has(p)) queue.push(p);
    };
    if (page.refresh) {
      next(page.refresh);
      continue;
    }
    (page.noindex ? noindex : pages).add(path);
    if (page.nofollow) continue;
    for (const l of page.links) if (!l.nofollow) next(l.url);
  }
  return { pages, noindex };
}
