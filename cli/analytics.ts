/**
 * `trawl analytics export` and `trawl analytics purge`: the search log from the shell — every
 * logged search with its clicks, as JSON lines or CSV; and the searches before a date deleted.
 */
import { once } from 'node:events';
import { Appliance } from '../appliance/index.ts';
import type { LoggedSearch, SearchClick } from '../model/index.ts';
import { csvLine, csvOf } from '../search-ui/analytics-reports.ts';
import { configFrom, log, say, UsageError, type CommonFlags } from './shared.ts';

/** Searches read from the store at a time. */
const PAGE = 1000;

/** A date flag as a time (ms), or a usage error naming it. */
function dateFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new UsageError(`--${name} ${value} is not a date: give one as 2026-12-01 or 2026-12-01T08:00:00Z`);
  return t;
}

export async function exportSearches(flags: CommonFlags & { since?: string; format?: string }): Promise<void> {
  const format = flags.format ?? 'jsonl';
  if (format !== 'jsonl' && format !== 'csv') throw new UsageError(`--format ${format} is not supported; use --format jsonl or --format csv`);
  const since = dateFlag('since', flags.since) ?? 0;
  const app = await Appliance.open(configFrom(flags), { log, noIndex: true });
  const write = async (text: string) => {
    if (!process.stdout.write(text)) await once(process.stdout, 'drain');
  };
  try {
    if (format === 'csv') await write(csvOf(CSV_COLUMNS, []));
    let n = 0;
    for await (const [s, clicks] of allSearches(app, since)) {
      await write(format === 'csv' ? csvLine(CSV_COLUMNS, csvRow(s, clicks)) : `${JSON.stringify(jsonRow(s, clicks))}\n`);
      n++;
    }
    say(`exported ${n} searches${flags.since ? ` since ${new Date(since).toISOString()}` : ''}`);
  } finally {
    await app.close();
  }
}

export async function purgeSearches(flags: CommonFlags & { before?: string }): Promise<void> {
  const before = dateFlag('before', flags.before);
  if (before === undefined) throw new UsageError('give --before DATE: the searches made before it are deleted, with their clicks');
  const app = await Appliance.open(configFrom(flags), { log, noIndex: true, lockFor: 'analytics' });
  try {
    const n = await app.store.searchLog.prune(before);
    say(`deleted ${n} searches made before ${new Date(before).toISOString()}`);
  } finally {
    await app.close();
  }
}

/** Every search from `since` on, in time order, with its clicks — a page at a time. */
async function* allSearches(app: Appliance, since: number): AsyncIterable<[LoggedSearch, SearchClick[]]> {
  // (Searches of one millisecond may straddle two pages: those already given are skipped.)
  let from = since;
  let given = new Set<string>();
  for (;;) {
    const page = (await app.store.searchLog.searches(from, PAGE + given.size)).filter((s) => !given.has(s.id));
    if (!page.length) return;
    const clicks = await app.store.searchLog.clicksOf(page.map((s) => s.id));
    for (const s of page) yield [s, clicks.filter((c) => c.searchId === s.id)];
    const last = page.at(-1)!.at;
    given = new Set([...(last === from ? given : []), ...page.filter((s) => s.at === last).map((s) => s.id)]);
    from = last;
  }
}

const jsonRow = (s: LoggedSearch, clicks: readonly SearchClick[]) => ({
  ...s,
  at: new Date(s.at).toISOString(),
  clicks: clicks.map((c) => ({ position: c.position, url: c.url, at: new Date(c.at).toISOString() })),
});

const CSV_COLUMNS = ['id', 'at', 'session', 'source', 'query', 'understood', 'page', 'total', 'tookMs', 'clicks', 'firstClickPosition', 'firstClickUrl'];
const csvRow = (s: LoggedSearch, clicks: readonly SearchClick[]) => ({
  ...s,
  at: new Date(s.at).toISOString(),
  clicks: clicks.length,
  firstClickPosition: clicks[0]?.position,
  firstClickUrl: clicks[0]?.url,
});
