/** The one-line crawl summary shown on the search page, in the CLI and in /api/status. */
import type { ApplianceStatus, SeedStatus } from '../model/index.ts';

/**
 * The crawl in one line: what is fetched, queued and failed — the sites' broken links told apart
 * from the crawl's own failures once the status knows them — and why no seed could be fetched.
 */
export function statusLine(s: Pick<ApplianceStatus, 'crawl' | 'index' | 'seeds'>): string {
  const c = s.crawl;
  const n = (x: number) => x.toLocaleString('en');
  const docs = `${n(s.index.documents)} documents indexed`;
  const trouble = seedTrouble(s.seeds);
  const tail = trouble ? ` · ${trouble}` : '';
  // Once the store tells them apart, "failed" is the crawl's own failures and the sites' broken links are said beside.
  const broken = c.brokenLinks?.count ? `${n(c.brokenLinks.count)} broken link${c.brokenLinks.count === 1 ? '' : 's'}` : '';
  if (!c.running) {
    const failures = c.fetchFailures?.count ? ` · ${n(c.fetchFailures.count)} failed` : '';
    return `Crawl idle · ${n(c.fetched)} pages fetched · ${docs}${failures}${broken ? ` · ${broken}` : ''}${tail}`;
  }
  const failed = `${n(c.fetchFailures?.count ?? c.failed)} failed${broken ? `, ${broken}` : ''}`;
  return `Crawling: ${n(c.fetched)} pages fetched, ${n(c.queued)} queued, ${failed} · ${c.pagesPerSecond} pages/s · ${docs}${tail}`;
}

/** Why a seed was not fetched, as a person reads it: the error code and its reason. */
export function seedCause(s: SeedStatus): string {
  const why = s.reason ?? (s.state === 'unknown' ? 'not queued (see the log: out of scope?)' : s.state);
  return s.error ? `${s.error} — ${why}` : why;
}

/**
 * "No seed could be fetched: …" when no seed has answered and each has had its try (none is still
 * queued or being fetched): a crawl that cannot start says why instead of serving an empty index.
 */
export function seedTrouble(seeds: readonly SeedStatus[] | undefined): string | undefined {
  if (!seeds?.length || seeds.some((s) => s.fetched || s.state === 'queued' || s.state === 'fetching')) return undefined;
  return `No seed could be fetched: ${seeds.map((s) => `${s.url} (${seedCause(s)})`).join('; ')}`;
}
