/** `trawl import` (web archives made searchable) and `trawl export --format warc`. */
import { once } from 'node:events';
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { Appliance } from '../appliance/index.ts';
import { importArchives, type ImportSummary } from '../appliance/import.ts';
import { PRODUCT_VERSION } from '../config/index.ts';
import { conversionRecord, warcinfoRecord } from '../crawler/archive/records.ts';
import { configFrom, IMPORT_SETTINGS, log, say, UsageError, type CommonFlags } from './shared.ts';

/** `trawl import FILE…`: each capture of the archives indexed as if crawled. */
export async function importFiles(files: string[], flags: CommonFlags): Promise<void> {
  if (!files.length) throw new UsageError('trawl import: name the WARC (or ARC) files to import, e.g. trawl import crawl.warc.gz');
  for (const f of files) if (!existsSync(f)) throw new UsageError(`trawl import: ${f} does not exist`);
  const config = configFrom(flags, [], IMPORT_SETTINGS);
  const app = await Appliance.open(config, { lockFor: 'import', log });
  try {
    const { crawler } = await app.createCrawler([], 'off');
    say(`importing ${files.length} file${files.length === 1 ? '' : 's'} into ${app.where}`);
    const summary = await importWithProgress(crawler, files);
    await app.refreshAnchors();
    await app.close();
    say(importLine(summary, (await app.status()).index.documents));
  } catch (e) {
    await app.close();
    throw e;
  }
}

/**
 * Imports with progress on stderr (stdout stays clean): a bar redrawn four times a second on a
 * terminal, a line every 5 s otherwise (logs, CI) — a 10 GB archive takes a while.
 */
export async function importWithProgress(
  crawler: Parameters<typeof importArchives>[0],
  files: readonly string[],
  out: NodeJS.WriteStream = process.stderr,
): Promise<ImportSummary> {
  const tty = out.isTTY === true;
  let last = 0;
  let drawn = false;
  const summary = await importArchives(crawler, files, (p) => {
    const now = Date.now();
    if (now - last < (tty ? 250 : 5000) && p.bytes < p.size) return;
    last = now;
    const share = p.size ? Math.min(1, p.bytes / p.size) : 1;
    const text =
      `${p.file}: ${(share * 100).toFixed(1)} % (${(p.bytes / 1e6).toFixed(1)} of ${(p.size / 1e6).toFixed(1)} MB), ` +
      `${p.captures.toLocaleString('en')} captures`;
    if (!tty) return void out.write(`  ${text}\n`);
    const filled = Math.round(share * 24);
    out.write(`${`\r[${'#'.repeat(filled)}${'-'.repeat(24 - filled)}] ${text}`.slice(0, (out.columns || 100) - 1)}\x1b[K`);
    drawn = true;
  });
  if (drawn) out.write('\n');
  return summary;
}

/** The summary of an import, for people. */
export function importLine(s: ImportSummary, documents: number): string {
  const outcomes =
    Object.entries(s.outcomes)
      .map(([k, n]) => `${n.toLocaleString('en')} ${k}`)
      .join(', ') || 'none handled';
  const skipped = [...s.skipped].map(([reason, x]) => `\n  skipped ${x.count}: ${reason}${x.example ? ` (e.g. ${x.example})` : ''}`).join('');
  return (
    `imported ${s.captures.toLocaleString('en')} captures from ${s.files} file${s.files === 1 ? '' : 's'}: ` +
    `${outcomes}; ${documents.toLocaleString('en')} documents in the index${skipped}`
  );
}

/**
 * `trawl export --format warc [--since DATE]`: the stored pages as gzipped WARC on stdout — each
 * archived response as it was recorded, and for a page fetched while archiving was off a
 * `conversion` record of its extracted text.
 */
export async function exportWarc(flags: CommonFlags & { since?: string }): Promise<void> {
  const since = flags.since ? Date.parse(flags.since) : 0;
  if (!Number.isFinite(since)) throw new UsageError(`--since ${flags.since}: not a date (e.g. 2026-11-01 or 2026-11-01T12:00:00Z)`);
  // (The store and the archive are read; the in-RAM index is neither loaded nor needed.)
  const app = await Appliance.open(configFrom(flags), { log, noIndex: true });
  const write = async (bytes: Uint8Array) => {
    if (!process.stdout.write(bytes)) await once(process.stdout, 'drain');
  };
  try {
    await write(
      await warcinfoRecord('trawl-export.warc.gz', {
        software: `Trawl ${PRODUCT_VERSION}`,
        description: `the pages stored in ${app.dataDir}${since ? ` fetched since ${new Date(since).toISOString()}` : ''}`,
      }),
    );
    let copied = 0;
    let converted = 0;
    for await (const d of app.store.documents.all()) {
      if (d.fetchedAt < since) continue;
      const ref = await app.store.archive.latest(d.id);
      const path = ref ? [join(app.dataDir, 'archive', ref.file), join(app.dataDir, 'archive', `${ref.file}.open`)].find((p) => existsSync(p)) : undefined;
      if (ref && path) {
        await write(readRange(path, ref.offset, ref.length));
        copied++;
      } else {
        await write((await conversionRecord(d.url, new Date(d.fetchedAt), d.title, d.text)).bytes);
        converted++;
      }
    }
    say(`exported ${copied + converted} pages as WARC: ${copied} archived responses, ${converted} as their extracted text`);
  } finally {
    await app.close();
  }
}

function readRange(path: string, offset: number, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(length);
    readSync(fd, b, 0, length, offset);
    return b;
  } finally {
    closeSync(fd);
  }
}
