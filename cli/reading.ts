/** The commands that read a crawl and change nothing: a search from the shell, and the export of its documents. */
import { once } from 'node:events';
import { Appliance } from '../appliance/index.ts';
import { PAGE_SIZE, type ScoreExplained } from '../indexer/index.ts';
import type { DocumentFacts } from '../model/index.ts';
import { searchJson } from '../search-ui/api/search-json.ts';
import { configFrom, log, say, UsageError, type CommonFlags } from './shared.ts';

/** `trawl search`: one query from the shell. */
export async function search(words: string[], flags: CommonFlags & { json?: boolean; page?: string; size?: string; explain?: boolean }): Promise<void> {
  const query = words.join(' ').trim();
  if (!query) throw new UsageError('give a query, e.g. trawl search "connection pooling"');
  const config = configFrom(flags);
  const app = await Appliance.open(config, { log });
  try {
    const page = flags.page ? Number(flags.page) : 1;
    const size = flags.size ? Number(flags.size) : 10;
    if (!Number.isInteger(page) || page < 1 || !Number.isInteger(size) || size < 1 || size > PAGE_SIZE.max)
      throw new UsageError(`--page must be ≥ 1 and --size from 1 to ${PAGE_SIZE.max}`);
    const r = await app.index.search(query, { page, size, ...(flags.explain ? { explain: true } : {}) });
    if (flags.json) {
      // The same JSON as /api/search (times in ISO 8601).
      process.stdout.write(`${JSON.stringify(searchJson(r), null, 2)}\n`);
      return;
    }
    const plain = (s: string) => s.replace(/<\/?mark>/g, '*').replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
    process.stdout.write(`${r.total} result${r.total === 1 ? '' : 's'} for "${query}" (${r.tookMs} ms)${r.partial ? ' — partial matches' : ''}\n`);
    if (r.suggestion) process.stdout.write(`Did you mean: ${r.suggestion}\n`);
    process.stdout.write('\n');
    r.hits.forEach((h, i) => {
      process.stdout.write(`${(page - 1) * size + i + 1}. ${h.title}\n   ${h.url}\n   ${plain(h.snippet)}\n${h.explain ? explanationText(h.explain) : ''}\n`);
    });
  } finally {
    await app.close();
  }
}

/**
 * `trawl export`: every indexed document as one JSON object a line — read from the store alone: the
 * in-RAM index is not loaded, nor needed (it was 0.3 s of the 0.7 s an export of 10,000 pages took, and 40 MB).
 */
export async function exportDocuments(flags: CommonFlags & { format?: string; output?: string }): Promise<void> {
  if (flags.format && flags.format !== 'jsonl') throw new UsageError(`--format ${flags.format} is not supported; use --format jsonl, warc or wacz`);
  if (flags.output) throw new UsageError('--output is for --format warc and wacz: JSONL goes to stdout');
  const config = configFrom(flags);
  const app = await Appliance.open(config, { log, noIndex: true });
  try {
    let n = 0;
    for await (const d of app.store.documents.all()) {
      const line = JSON.stringify({
        url: d.url,
        // Every URL it was found under (the content-seen test stores one document for them all).
        urls: await app.store.documents.urlsOf(d),
        title: d.title,
        text: d.text,
        description: d.description,
        headings: d.headings,
        contentType: d.contentType,
        httpStatus: d.httpStatus,
        bytes: d.bytes,
        truncated: d.truncated,
        fetchedAt: new Date(d.fetchedAt).toISOString(),
        hash: d.hash,
        ...(d.lang ? { lang: d.lang } : {}),
        ...(d.document ? documentFields(d.document) : {}),
      });
      if (!process.stdout.write(`${line}\n`)) await once(process.stdout, 'drain');
      n++;
    }
    say(`exported ${n} documents`);
  } finally {
    await app.close();
  }
}

/** A document's facts as `trawl export` writes them: its type, size in pages, who and when, where each page begins. */
function documentFields(f: DocumentFacts): Record<string, unknown> {
  return {
    type: f.format,
    ...(f.pages !== undefined ? { pages: f.pages } : {}),
    ...(f.author ? { author: f.author } : {}),
    ...(f.subject ? { subject: f.subject } : {}),
    ...(f.keywords ? { keywords: f.keywords } : {}),
    ...(f.created ? { created: f.created } : {}),
    ...(f.modified ? { modified: f.modified } : {}),
    ...(f.pageOffsets ? { pageOffsets: f.pageOffsets } : {}),
    ...(f.pagesCut ? { pagesCut: f.pagesCut } : {}),
  };
}

/** A hit's score taken apart, as `trawl search --explain` prints it under the hit: a line a part. */
function explanationText(e: ScoreExplained): string {
  const n = (x: number) => x.toFixed(3);
  const lines = [`score ${n(e.score)} = (words + title bonus ${n(e.titleBonus)} + links ${n(e.links.score)} (${e.links.inlinks} in))`];
  const factors = [
    ['only alternatives', e.alternativesOnly],
    ['coverage', e.coverage],
    ['exact forms', e.exactForms],
    ['proximity', e.proximity],
  ] as const;
  lines[0] += factors.map(([name, x]) => ` × ${name} ${n(x)}`).join('');
  for (const w of e.words) {
    const fields = Object.entries(w.fields)
      .map(([f, x]) => `${f} ${n(x)}`)
      .join(', ');
    const as = w.term === w.word ? '' : ` as "${w.term}"${w.own ? '' : ' (an alternative)'}`;
    lines.push(`"${w.word}"${as}: ${n(w.score)} (weight ${n(w.weight)}${w.inTitle ? ', in the title' : ''}: ${fields})`);
  }
  if (e.missing.length) lines.push(`missing: ${e.missing.map((m) => `"${m}"`).join(', ')}`);
  return lines.map((l) => `   · ${l}\n`).join('');
}
