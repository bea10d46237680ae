/**
 * Sitemaps (sitemaps.org): a `<urlset>` lists pages, a `<sitemapindex>` lists more sitemaps. Both are
 * only sources of URLs for the frontier; neither is a document.
 */
import * as cheerio from 'cheerio';

export type Sitemap = { readonly pages: readonly string[]; readonly sitemaps: readonly string[] };

const MAX_ENTRIES = 50_000; // the protocol's own per-file limit

export function parseSitemap(xml: string): Sitemap | undefined {
  const $ = cheerio.load(xml, { xml: true });
  const locs = (sel: string) =>
    $(sel)
      .toArray()
      .slice(0, MAX_ENTRIES)
      .map((e) => $(e).text().trim())
      .filter(Boolean);
  if ($('urlset').length) return { pages: locs('urlset > url > loc'), sitemaps: [] };
  if ($('sitemapindex').length) return { pages: [], sitemaps: locs('sitemapindex > sitemap > loc') };
  return undefined;
}

export function looksLikeSitemap(contentType: string, url: string): boolean {
  return /\bxml\b/.test(contentType) || /sitemap[^/]*\.xml$/i.test(new URL(url).pathname);
}
