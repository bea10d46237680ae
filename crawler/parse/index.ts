export { decodeBody } from './decode.ts';
export { extract, isDocumentJob, type Extracted, type ParseJob, type Refusal } from './extract.ts';
export { RoutedParser } from './route.ts';
export { parseHtml, parsePlainText, type Link, type ParsedPage } from './html.ts';
export { defaultParseWorkers, ParseFailure, ParsePool, type ExtractFn, type PageParser, type ParsePoolOptions } from './pool.ts';
export { looksLikeSitemap, parseSitemap, type Sitemap } from './sitemap.ts';
