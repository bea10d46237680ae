/**
 * `trawl classify (URL | FILE)`: how a focused crawl would judge one page — its score, the
 * decision, its classes, and which terms matched where — to tune a topic file by hand.
 */
import { readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Config } from '../config/index.ts';
import { fetcherOf, parseSettingsOf } from '../appliance/wiring.ts';
import { judge, loadFocus, type Verdict } from '../crawler/focus/index.ts';
import type { Extracted, ParsedPage } from '../crawler/parse/index.ts';
import { extract } from '../crawler/parse/extract.ts';
import { configFrom, UsageError, type CommonFlags } from './shared.ts';

export type ClassifyFlags = Pick<CommonFlags, 'config'> & { topic?: string; scorer?: string; cutoff?: string; json?: boolean };

export async function classify(target: string, flags: ClassifyFlags): Promise<void> {
  const config = configFrom(flags, [], { focus: focusFlags(flags) });
  if (!config.focus.topicFile && !config.focus.classifier)
    throw new UsageError('no topic: give --topic FILE (e.g. --topic config/topics/astronomy.txt), or a config with focus.topicFile');
  const focus = await loadFocus(config.focus);
  const page = /^https?:\/\//i.test(target) ? await fetchPage(target, config) : await readPage(target, config);
  const verdict = await judge(focus, page);
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify({ score: verdict.score, relevant: verdict.relevant, classes: verdict.classes, matches: verdict.matches }, null, 2)}\n`,
    );
    return;
  }
  process.stdout.write(report(page, verdict, focus.classifier.name, config.focus.cutoff));
}

/** --topic, --scorer and --cutoff, shaped like the config (they override it). */
function focusFlags(flags: ClassifyFlags): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (flags.topic !== undefined) out.topicFile = resolve(flags.topic);
  if (flags.scorer !== undefined) {
    if (flags.scorer !== 'plain' && flags.scorer !== 'position') throw new UsageError(`--scorer must be plain or position, not "${flags.scorer}"`);
    out.scorer = flags.scorer;
  }
  if (flags.cutoff !== undefined) {
    const cutoff = Number(flags.cutoff);
    if (flags.cutoff.trim() === '' || !Number.isFinite(cutoff)) throw new UsageError(`--cutoff must be a number, not "${flags.cutoff}"`);
    out.cutoff = cutoff;
  }
  return out;
}

const MAX_REDIRECTS = 5;

/** Fetches and parses a page as the crawler would (the same fetcher and parse settings), following redirects. */
async function fetchPage(url: string, config: Readonly<Config>): Promise<ParsedPage> {
  const fetcher = await fetcherOf(config, [url]);
  try {
    let at = url;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const res = await fetcher.fetch(at);
      if (res.kind === 'error') throw new Error(`cannot fetch ${at}: ${res.code} (${res.message})`);
      if (res.status >= 300 && res.status < 400 && res.location) {
        at = new URL(res.location, at).href;
        continue;
      }
      if (res.status < 200 || res.status >= 300) throw new Error(`cannot classify ${at}: it answers HTTP ${res.status}`);
      return pageOf(await extract({ body: res.body, contentType: res.contentType, url: at, truncated: res.truncated, ...parseSettingsOf(config) }), at);
    }
    throw new Error(`cannot fetch ${url}: more than ${MAX_REDIRECTS} redirects`);
  } finally {
    await fetcher.close();
  }
}

/** Reads a saved page: HTML, or plain text for .txt files. */
async function readPage(file: string, config: Readonly<Config>): Promise<ParsedPage> {
  let body: Buffer;
  try {
    body = readFileSync(file);
  } catch (e) {
    throw new UsageError(
      `cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): give a URL (http:// or https://) or a saved page`,
    );
  }
  const url = pathToFileURL(resolve(file)).href;
  // (A PDF or an Office file is told by its bytes; an unknown extension is read as HTML.)
  const ext = extname(file).toLowerCase();
  const contentType = ext === '.md' || ext === '.markdown' ? 'text/markdown' : ['.txt', '.text'].includes(ext) ? 'text/plain' : '';
  return pageOf(await extract({ body, contentType, url, ...parseSettingsOf(config) }), url);
}

function pageOf(x: Extracted, url: string): ParsedPage {
  if (x.kind === 'page') return x.page;
  const what = x.kind === 'sitemap' ? 'a sitemap' : x.kind === 'refused' ? `a ${x.format} refused: ${x.reason} (${x.detail})` : `type ${x.type}`;
  throw new Error(`${url} is not a page Trawl indexes (${what})`);
}

/** The verdict for a person: the decision first, then the classes, then each matched term. */
function report(page: ParsedPage, v: Verdict, classifier: string, cutoff: number): string {
  const decision = v.siteOK ? 'RELEVANT (its host is in focus.sitesOK)' : v.relevant ? 'RELEVANT' : 'NOT RELEVANT';
  const lines = [
    `${page.url}`,
    `  title: ${page.title}`,
    `${decision} — score ${v.score} ${v.score >= cutoff ? '≥' : '<'} cutoff ${cutoff} (${classifier})`,
    `classes: ${v.classes.length ? v.classes.map((c) => `${c.name} ${c.score}`).join(', ') : '(none)'}`,
  ];
  if (v.matches.length) {
    lines.push('matched terms:');
    const width = Math.min(40, Math.max(...v.matches.map((m) => m.term.length)));
    for (const m of v.matches) {
      const where = m.where.map((w) => `${w.location} ×${w.hits}`).join(', ');
      lines.push(
        `${`  line ${String(m.line).padEnd(4)} ${String(m.weight).padStart(5)}: ${m.term.padEnd(width)}  ${(m.score >= 0 ? '+' : '') + m.score}`.padEnd(
          width + 30,
        )}  in ${where}`,
      );
    }
  } else lines.push('matched terms: none');
  return `${lines.join('\n')}\n`;
}
