export { decodeBody } from './decode.ts';
export { extract, type Extracted, type ParseJob } from './extract.ts';
export { parseHtml, parsePlainText, type Link, type ParsedPage } from './html.ts';
export { defaultParseWorkers, ParseFailure, ParsePool, type PageParser, type ParsePoolOptions } from './pool.ts';
export { looksLikeSitemap, parseSitemap, type Sitemap } from './sitemap.ts';
