export { decodeBody } from './decode.ts';
export { parseHtml, parsePlainText, type Link, type ParsedPage } from './html.ts';
export { looksLikeSitemap, parseSitemap, type Sitemap } from './sitemap.ts';
