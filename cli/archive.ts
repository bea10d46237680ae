/** `trawl import` (web archives made searchable) and `trawl export --format warc|wacz`. */
import { readRange } from '../lib/read-range.ts';
import { once } from 'node:events';
import { createReadStream, createWriteStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { Appliance } from '../appliance/index.ts';
import { importArchives, readToEnd, type FileSummary, type ImportSummary } from '../appliance/import.ts';
import { PRODUCT_VERSION } from '../config/index.ts';
import { conversionRecord, warcinfoRecord } from '../crawler/archive/records.ts';
import type { WaczPage } from '../crawler/archive/wacz-write.ts';
import { locateWarc, type WarcLocation } from '../crawler/archive/warc-file.ts';
import { configFrom, IMPORT_SETTINGS, log, say, UsageError, type CommonFlags } from './shared.ts';

/** `trawl import FILE…`: each capture of the archives indexed as if crawled. Exit 1 when a file could not be read whole. */
export async function importFiles(files: string[], flags: CommonFlags): Promise<void> {
  if (!files.length) throw new UsageError('trawl import: name the WARC, ARC or WACZ files to import, e.g. trawl import crawl.warc.gz');
  for (const f of files) if (!existsSync(f)) throw new UsageError(`trawl import: ${f} does not exist`);
  const config = configFrom(flags, [], IMPORT_SETTINGS);
  const app = await Appliance.open(config, { lockFor: 'import', log });
  let summary: ImportSummary;
  try {
    const { crawler } = await app.createCrawler([], 'off');
    say(`importing ${files.length} file${files.length === 1 ? '' : 's'} into ${app.where}`);
    summary = await importWithProgress(crawler, files);
    await app.refreshAnchors();
    await app.close();
    say(importLine(summary, (await app.status()).index.documents));
  } catch (e) {
    await app.close();
    throw e;
  }
  if (!summary.complete) throw new ImportIncompleteError(summary);
}

/** Some file was not read to its end (exit code 1); each was named in its own line already. */
export class ImportIncompleteError extends Error {
  readonly code = 'ERR_IMPORT_INCOMPLETE';
  constructor(s: ImportSummary) {
    const bad = s.perFile.filter((f) => !readToEnd(f)).map((f) => f.file);
    super(`${bad.length} of ${s.files} file${s.files === 1 ? ' was' : 's were'} not read to the end: ${bad.join(', ')}`);
  }
}

/**
 * Imports with progress on stderr (stdout stays clean): each file named once as it begins, then a
 * bar redrawn four times a second on a terminal, a line every 5 s otherwise (logs, CI) — a 10 GB
 * archive takes a while — and each file's own line as it ends.
 */
export async function importWithProgress(
  crawler: Parameters<typeof importArchives>[0],
  files: readonly string[],
  out: NodeJS.WriteStream = process.stderr,
): Promise<ImportSummary> {
  const tty = out.isTTY === true;
  let last = 0;
  let drawn = false;
  const clear = () => {
    if (drawn) out.write('\r\x1b[K');
    drawn = false;
  };
  return importArchives(crawler, files, {
    fileStarted: (file, i, n) => {
      last = Date.now();
      out.write(`[trawl] ${n > 1 ? `[${i + 1}/${n}] ` : ''}reading ${file}\n`);
    },
    progress: (p) => {
      const now = Date.now();
      if (now - last < (tty ? 250 : 5000) || p.bytes >= p.size) return;
      last = now;
      const share = p.size ? Math.min(1, p.bytes / p.size) : 1;
      const mb = (x: number) => (x / 1e6).toFixed(1);
      const text = `${(share * 100).toFixed(1)} % (${mb(p.bytes)} of ${mb(p.size)} MB), ${p.captures.toLocaleString('en')} captures`;
      if (!tty) return void out.write(`  ${text}\n`);
      const filled = Math.round(share * 24);
      out.write(`${`\r[${'#'.repeat(filled)}${'-'.repeat(24 - filled)}] ${text}`.slice(0, (out.columns || 100) - 1)}\x1b[K`);
      drawn = true;
    },
    fileDone: (f) => {
      clear();
      out.write(`[trawl] ${fileLine(f)}\n`);
    },
  });
}

/** One file's account: its format, its records, what its captures came to, and whether it was read to its end. */
export function fileLine(f: FileSummary): string {
  if (f.refused) return `${f.file}: not read: ${f.refused}`;
  const n = (x: number) => x.toLocaleString('en');
  const records = Object.entries(f.records)
    .sort((a, b) => b[1] - a[1])
    .map(([k, x]) => `${n(x)} ${k}`)
    .join(', ');
  const outcomes = Object.entries(f.outcomes)
    .map(([k, x]) => `${n(x)} ${k}`)
    .join(', ');
  const skipped = [...f.skipped].map(([reason, x]) => `\n    skipped ${n(x.count)}: ${reason}${x.example ? ` (e.g. ${x.example})` : ''}`).join('');
  const problems = f.problems.map((p) => `\n    ${n(p.count)} × ${p.reason}${p.example ? ` (e.g. ${p.example})` : ''}`).join('');
  const damage = f.damage.map((d) => `\n    damaged${d.where ? ` in ${d.where}` : ''} at byte ${n(d.at)}: ${d.reason}`).join('');
  const end = f.damage.length ? `not read to its end: ${f.damage.length} damaged place${f.damage.length === 1 ? '' : 's'}` : 'read to its end';
  return (
    `${f.file}: ${f.format}; ${records ? `records ${records}` : 'no records'}; ` +
    `${n(f.captures)} captures${outcomes ? ` (${outcomes})` : ''}; ${end}${damage}${skipped}${problems}`
  );
}

/** The summary of an import, for people. */
export function importLine(s: ImportSummary, documents: number): string {
  const outcomes =
    Object.entries(s.outcomes)
      .map(([k, n]) => `${n.toLocaleString('en')} ${k}`)
      .join(', ') || 'none handled';
  const read = s.perFile.filter(readToEnd).length;
  return (
    `imported ${s.captures.toLocaleString('en')} captures from ${s.files} file${s.files === 1 ? '' : 's'}: ` +
    `${outcomes}; ${documents.toLocaleString('en')} documents in the index; ` +
    `${read === s.files ? (s.files === 1 ? 'the file was' : `all ${s.files} files were`) : `${read} of ${s.files} files were`} read to the end`
  );
}

/** The WARC file of an export, and its name inside the WACZ of one. */
const EXPORT_NAME = 'trawl-export.warc.gz';

/**
 * `trawl export --format warc|wacz [--since DATE] [--output FILE]`: the stored pages as gzipped WARC
 * — each archived response as it was recorded, and for a page fetched while archiving was off a
 * `conversion` record of its extracted text — on stdout or into FILE. With wacz, that WARC is
 * written to a temporary file first, then packaged as a WACZ with the archived pages listed (their
 * title from the store, their capture date); the converted ones are in its WARC but not listed (a
 * player replays responses, not conversion records).
 */
export async function exportArchive(flags: CommonFlags & { since?: string; format?: string; output?: string }): Promise<void> {
  const since = flags.since ? Date.parse(flags.since) : 0;
  if (!Number.isFinite(since)) throw new UsageError(`--since ${flags.since}: not a date (e.g. 2026-11-01 or 2026-11-01T12:00:00Z)`);
  const wacz = flags.format === 'wacz';
  if (flags.output && !existsSync(dirname(resolve(flags.output)))) throw new UsageError(`--output ${flags.output}: its folder does not exist`);
  // (The store and the archive are read; the in-RAM index is neither loaded nor needed.)
  const app = await Appliance.open(configFrom(flags), { log, noIndex: true });
  // A WACZ's WARC and page list wait in a temporary folder: beside the output (the same disk), else the system's.
  const temp = wacz ? mkdtempSync(join(flags.output ? dirname(resolve(flags.output)) : tmpdir(), '.trawl-export-')) : undefined;
  try {
    const out = temp ? createWriteStream(join(temp, EXPORT_NAME)) : flags.output ? createWriteStream(flags.output) : process.stdout;
    const pages = temp ? createWriteStream(join(temp, 'pages.jsonl')) : undefined;
    const write = async (stream: Writable, bytes: Uint8Array | string) => {
      if (!stream.write(bytes)) await once(stream, 'drain');
    };
    const description = `the pages stored in ${app.dataDir}${since ? ` fetched since ${new Date(since).toISOString()}` : ''}`;
    await write(out, await warcinfoRecord(EXPORT_NAME, { software: `Trawl ${PRODUCT_VERSION}`, description }));
    const archive = join(app.dataDir, 'archive');
    const located = new Map<string, Promise<WarcLocation | undefined>>();
    const where = (file: string) => located.get(file) ?? located.set(file, locateWarc(archive, file)).get(file)!;
    let copied = 0;
    let converted = 0;
    for await (const d of app.store.documents.all()) {
      if (d.fetchedAt < since) continue;
      const ref = await app.store.archive.latest(d.id);
      const at = ref ? await where(ref.file) : undefined;
      if (ref && at) {
        await write(out, readRange(at.path, at.start + ref.offset, ref.length));
        if (pages) await write(pages, `${JSON.stringify({ url: d.url, ts: ref.date, ...(d.title ? { title: d.title } : {}) } satisfies WaczPage)}\n`);
        copied++;
      } else {
        await write(out, (await conversionRecord(d.url, new Date(d.fetchedAt), d.title, d.text)).bytes);
        converted++;
      }
    }
    const what = `${copied} archived responses, ${converted} as their extracted text`;
    if (out !== process.stdout) await finished(out.end());
    if (!temp || !pages) return say(`exported ${copied + converted} pages as WARC: ${what}`);
    await finished(pages.end());
    const { writeWacz } = await import('../crawler/archive/wacz-write.ts');
    const s = await writeWacz(flags.output ?? process.stdout, {
      warcs: [{ name: EXPORT_NAME, path: join(temp, EXPORT_NAME) }],
      pages: linesOf(join(temp, 'pages.jsonl')),
      title: `Trawl export of ${app.dataDir}`,
      description: `${description[0]!.toUpperCase()}${description.slice(1)}, exported by Trawl ${PRODUCT_VERSION}.`,
      software: `Trawl ${PRODUCT_VERSION}`,
    });
    say(`exported ${copied + converted} pages as WACZ: ${what}; ${s.records} captures indexed, ${s.pages} pages listed, ${sizeOf(s.bytes)}`);
  } finally {
    if (temp) rmSync(temp, { recursive: true, force: true });
    await app.close();
  }
}

const sizeOf = (bytes: number) => (bytes < 1e6 ? `${(bytes / 1e3).toFixed(1)} kB` : `${(bytes / 1e6).toFixed(1)} MB`);

/** The pages an export wrote down, one JSON object a line. */
async function* linesOf(path: string): AsyncGenerator<WaczPage> {
  for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) if (line) yield JSON.parse(line) as WaczPage;
}
