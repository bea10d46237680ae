/**
 * A web archive made searchable (`trawl import`, `trawl start --warc`): each capture of a page in
 * the files — WARC from any crawler, or ARC — goes through the crawl's own pipeline as if it had
 * just been fetched (crawler.ingest): parsed, judged, stored with its original URL and capture
 * date, indexed at once, duplicates folded, its links' anchor text counted. Nothing is fetched.
 * Streams the files in bounded memory; what cannot be used is counted with its reason.
 */
import { statSync } from 'node:fs';
import type { Crawler } from '../crawler/index.ts';
import { readArchive } from '../crawler/archive/read.ts';
import type { FetchResponse } from '../crawler/fetch/fetcher.ts';

export type ImportSummary = {
  readonly files: number;
  readonly captures: number;
  /** What the captures came to: indexed, excluded (a duplicate, noindex…), dead… */
  readonly outcomes: Readonly<Record<string, number>>;
  /** Records skipped, by reason, and an example URL of each. */
  readonly skipped: ReadonlyMap<string, { count: number; example?: string }>;
};

export type ImportProgress = { readonly file: string; readonly bytes: number; readonly size: number; readonly captures: number };

/** Captures handled at once: the parse workers stay busy, the memory bounded. */
const IN_FLIGHT = 8;

export async function importArchives(
  crawler: Crawler,
  files: readonly string[],
  onProgress: (p: ImportProgress) => void = () => undefined,
): Promise<ImportSummary> {
  const outcomes: Record<string, number> = {};
  const skipped = new Map<string, { count: number; example?: string }>();
  let captures = 0;
  const skip = (reason: string, url?: string) => {
    const s = skipped.get(reason) ?? { count: 0, ...(url ? { example: url } : {}) };
    s.count++;
    skipped.set(reason, s);
  };
  for (const file of files) {
    const size = statSync(file).size;
    const running = new Set<Promise<void>>();
    for await (const item of readArchive(file)) {
      if (item.kind === 'progress') {
        onProgress({ file, bytes: item.bytes, size, captures });
        continue;
      }
      if (item.kind === 'skipped') {
        skip(item.reason, item.url);
        continue;
      }
      captures++;
      const res: FetchResponse = {
        kind: 'response',
        status: item.status,
        contentType: (item.headers['content-type'] ?? '').toLowerCase(),
        headers: item.headers,
        body: item.body,
        truncated: item.truncated,
        wireBytes: item.body.length,
        ...(item.headers.location ? { location: item.headers.location } : {}),
      };
      const done = crawler.ingest(item.url, res, item.date).then(
        (r) => {
          if ('refused' in r) skip(`not admitted: ${r.refused}`, item.url);
          else outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
        },
        (e: unknown) => skip(`could not be handled: ${(e as Error).message}`, item.url),
      );
      const p = done.finally(() => running.delete(p));
      running.add(p);
      if (running.size >= IN_FLIGHT) await Promise.race(running);
    }
    await Promise.all(running);
    onProgress({ file, bytes: size, size, captures });
  }
  return { files: files.length, captures, outcomes, skipped };
}
