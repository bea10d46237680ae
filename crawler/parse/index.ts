export { decodeBody } from './decode.ts';
export type { Extracted, ParseJob, Refusal } from './extract.ts';
export { isDocumentJob, LeaveToWorker } from './jobs.ts';
export { RoutedParser } from './route.ts';
export { parseHtml, parsePlainText, type Link, type ParsedPage } from './html.ts';
export { defaultParseWorkers, ParseFailure, ParsePool, type ExtractFn, type PageParser, type ParsePoolOptions } from './pool.ts';
export { looksLikeSitemap, parseSitemap, type Sitemap } from './sitemap.ts';
