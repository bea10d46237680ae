/**
 * The two ways a page is parsed (crawler/parse/html.ts), over real corpora: how many pages the
 * streaming extractor (no tree) gives differently from cheerio's DOM walked — field by field, the
 * target is 0 — and what each costs per page on one thread (the same decoded pages, alternated,
 * median of --rounds passes). Default corpora: the PostgreSQL docs and the Python docs
 * (`apt-get install postgresql-doc-15 python3.11-doc`).
 *
 *   npx tsx bench/parse-paths.ts [--rounds 3] [--exclude 'div.sphinxsidebar, .navheader'] [ROOT…]
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { parseSettingsOf } from '../appliance/wiring.ts';
import { DEFAULT_CONFIG } from '../config/defaults.ts';
import { decodeBody } from '../crawler/parse/index.ts';
import { parsedAs, parseHtmlAs, type ParsedPage } from '../crawler/parse/html.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { rounds: { type: 'string', default: '3' }, exclude: { type: 'string' } } });
const roots = positionals.length ? positionals : ['/usr/share/doc/postgresql-doc-15/html', '/usr/share/doc/python3.11/html'];
const extraction = values.exclude ? { exclude: values.exclude } : {};
const { robotsToken, maxLinks } = parseSettingsOf(DEFAULT_CONFIG);
if (parsedAs(values.exclude) !== 'stream') throw new Error(`--exclude "${values.exclude}" needs the tree: nothing to compare`);

const htmlFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? htmlFiles(p) : p.endsWith('.html') ? [p] : [];
  });
const comparable = (p: ParsedPage) => ({ ...p, blocks: Array.from(p.blocks ?? []) });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (const root of roots) {
  if (!existsSync(root)) {
    console.log(`${root}: not installed`);
    continue;
  }
  const pages = htmlFiles(root).map((f) => ({ url: `http://corpus.test/${relative(root, f)}`, html: decodeBody(readFileSync(f), 'text/html').text }));
  const differ: string[] = [];
  for (const { url, html } of pages) {
    const s = comparable(parseHtmlAs('stream', html, url, robotsToken, maxLinks, extraction));
    const t = comparable(parseHtmlAs('tree', html, url, robotsToken, maxLinks, extraction));
    if (!isDeepStrictEqual(s, t))
      differ.push(
        `${url} (${Object.keys({ ...s, ...t })
          .filter((k) => !isDeepStrictEqual(s[k as keyof typeof s], t[k as keyof typeof t]))
          .join(', ')})`,
      );
  }
  const ms: Record<'stream' | 'tree', number[]> = { stream: [], tree: [] };
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const path of r % 2 ? (['tree', 'stream'] as const) : (['stream', 'tree'] as const)) {
      const start = process.cpuUsage();
      for (const { url, html } of pages) parseHtmlAs(path, html, url, robotsToken, maxLinks, extraction);
      const used = process.cpuUsage(start);
      ms[path].push((used.user + used.system) / 1000 / pages.length);
    }
  }
  const mb = pages.reduce((n, p) => n + p.html.length, 0) / 1e6;
  console.log(`${root}: ${pages.length} pages (${mb.toFixed(1)} M characters), ${differ.length} differ between the stream and the tree`);
  for (const d of differ.slice(0, 20)) console.log(`  differs: ${d}`);
  const s = median(ms.stream);
  const t = median(ms.tree);
  console.log(`  CPU ms/page, median of ${values.rounds}: stream ${s.toFixed(3)}, tree (cheerio) ${t.toFixed(3)} — ${(t / s).toFixed(2)}× faster`);
}
