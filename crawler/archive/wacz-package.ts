/**
 * archive.format wacz: each WARC file the crawl finishes is packaged into a WACZ of the same name
 * beside it (`trawl-….warc.gz` → `trawl-….wacz`), then removed. Its pages are the file's 200
 * responses of HTML, titled by their `<title>`. The WARC's bytes are the WACZ's stored entry, so the
 * store's refs (file, offset, length) stay right: warc-file.ts `locateWarc` finds the file inside.
 *
 * The WACZ is made as `<name>.wacz.part` and renamed once durable, and only then is the WARC file
 * removed: a crash at any point leaves the WARC file whole, and the next start packages it again.
 */
import { createReadStream, existsSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { WARCParser } from 'warcio';
import { decodeBody } from '../parse/decode.ts';
import { waczNameOf } from './warc-file.ts';
import { writeWacz, type WaczPage, type WaczSummary } from './wacz-write.ts';

/** A page's `<title>` is looked for in this much of its HTML, at most (it is in the head). */
const TITLE_SCAN_CHARS = 256 * 1024;
/** A response larger than this is listed without a title: its body is not read into memory for it. */
const TITLE_MAX_RECORD_BYTES = 32 * 1024 * 1024;

const HTML = /^\s*(text\/html|application\/xhtml\+xml)\b/i;

/** Packages finished WARC file `path` into `<name>.wacz` beside it and removes it. */
export async function packageWarc(path: string, o: { readonly title: string; readonly software: string }): Promise<WaczSummary> {
  const name = basename(path);
  const wacz = join(dirname(path), waczNameOf(name));
  const summary = await writeWacz(wacz, {
    warcs: [{ name, path }],
    pages: htmlPagesOf(path),
    title: o.title,
    software: o.software,
    description: `The WARC file ${name}, written by ${o.software} as it crawled.`,
  });
  rmSync(path);
  return summary;
}

/**
 * The finished WARC files in `dir` not packaged yet: with archive.format wacz, every one (those a
 * crash left, whether before or during their packaging, and those of a crawl made with
 * archive.format warc). A `.wacz.part` a crash left is removed (its WARC file is still there).
 */
export function unpackaged(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const files = readdirSync(dir).sort();
  for (const f of files) if (f.endsWith('.wacz.part')) rmSync(join(dir, f), { force: true });
  return files.filter((f) => f.endsWith('.warc.gz')).map((f) => join(dir, f));
}

/** The pages of a WARC file: its 200 responses of HTML, each with its capture date and `<title>`. */
export async function* htmlPagesOf(path: string): AsyncGenerator<WaczPage> {
  const { load } = await import('cheerio/slim');
  for await (const record of new WARCParser(createReadStream(path))) {
    const url = record.warcTargetURI;
    const type = record.httpHeaders?.headers.get('content-type') ?? '';
    if (record.warcType !== 'response' || !url || Number(record.httpHeaders?.statusCode) !== 200 || !HTML.test(type) || !record.warcDate) continue;
    let title: string | undefined;
    if (record.warcContentLength <= TITLE_MAX_RECORD_BYTES) {
      // (The payload with its Content-Encoding undone: the archive keeps it as it came.)
      const body = Buffer.from(await record.readFully(true));
      const { text } = decodeBody(body, type);
      const end = text.search(/<\/head\s*>/i);
      const head = text.slice(0, end >= 0 ? end : TITLE_SCAN_CHARS);
      title = load(head)('title').first().text().replace(/\s+/g, ' ').trim() || undefined;
    }
    yield { url, ts: record.warcDate, ...(title ? { title } : {}) };
  }
}
