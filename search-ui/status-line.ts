/** The one-line crawl summary shown on the search page, in the CLI and in /api/status. */
import type { ApplianceStatus, SeedStatus } from '../model/index.ts';

export function statusLine(s: Pick<ApplianceStatus, 'crawl' | 'index' | 'seeds'>): string {
  const c = s.crawl;
  const docs = `${s.index.documents.toLocaleString('en')} documents indexed`;
  const trouble = seedTrouble(s.seeds);
  const tail = trouble ? ` · ${trouble}` : '';
  if (!c.running) return `Crawl idle · ${c.fetched.toLocaleString('en')} pages fetched · ${docs}${tail}`;
  return `Crawling: ${c.fetched.toLocaleString('en')} pages fetched, ${c.queued.toLocaleString('en')} queued, ${c.failed.toLocaleString('en')} failed · ${c.pagesPerSecond} pages/s · ${docs}${tail}`;
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
