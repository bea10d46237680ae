/**
 * Sitemaps (sitemaps.org): a `<urlset>` lists pages, a `<sitemapindex>` lists more sitemaps. Both are
 * only sources of URLs for the frontier; neither is a document.
 */
import * as cheerio from 'cheerio/slim';

export type SitemapPage = { readonly url: string; readonly lastmod?: string };
export type Sitemap = { readonly pages: readonly SitemapPage[]; readonly sitemaps: readonly string[] };

const MAX_ENTRIES = 50_000; // the protocol's own per-file limit

export function parseSitemap(xml: string): Sitemap | undefined {
  const $ = cheerio.load(xml, { xml: true });
  const locs = (sel: string) =>
    $(sel)
      .toArray()
      .slice(0, MAX_ENTRIES)
      .map((e) => $(e).text().trim())
      .filter(Boolean);
  if ($('urlset').length) {
    const pages = $('urlset > url')
      .toArray()
      .slice(0, MAX_ENTRIES)
      .flatMap((e) => {
        const url = $(e).children('loc').first().text().trim();
        const lastmod = $(e).children('lastmod').first().text().trim();
        return url ? [lastmod ? { url, lastmod } : { url }] : [];
      });
    return { pages, sitemaps: [] };
  }
  if ($('sitemapindex').length) return { pages: [], sitemaps: locs('sitemapindex > sitemap > loc') };
  return undefined;
}

export function looksLikeSitemap(contentType: string, url: string): boolean {
  return /\bxml\b/.test(contentType) || /sitemap[^/]*\.xml(\.gz)?$/i.test(new URL(url).pathname) || /gzip/.test(contentType);
}
