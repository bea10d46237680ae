/**
 * The search log's writer: searches and clicks go to the store in batches, off the query path
 * (a search only queues a record and gets its id), and a session's searches made as the person
 * types are one: each search within PAUSE_MS of the last that goes on from it (or is cut back
 * from it) takes its place, the queries on the way kept as its prefixes; it is logged once the
 * person pauses, or clicks. A click is counted only on a URL its search showed at that position,
 * and once per session, query and URL (a reload or a bot clicking again moves no count).
 */
import { randomUUID } from 'node:crypto';
import type { LoggedSearch } from '../model/index.ts';
import type { Log } from '../lib/log.ts';
import type { SearchLogStore } from '../store/index.ts';

const NO_PREFIXES: readonly string[] = Object.freeze([]);

/** A search is logged once its session has made no search going on from it for this long. */
export const PAUSE_MS = 1000;
/** How often queued searches and clicks are written. */
export const WRITE_EVERY_MS = 1000;
/** Searches written in one transaction at most (~0.5 ms on SQLite): a search waits behind one such write at most. */
const WRITE_SLICE = 32;
/** Searches remembered to check clicks against, before the store is asked. */
const RECENT = 10_000;
/** Clicks remembered to count one a session, query and URL (beyond, the store's counts still dedupe by report). */
const COUNTED = 100_000;
/** A session's search made within this long of its last one, with another query, refines it (A, then B: the console's refinements). */
export const REFINE_MS = 10 * 60_000;
/** Sessions whose last search is remembered, to link a refinement to it. */
const SESSIONS = 100_000;
/** Records queued at most: past that (a store that does not answer), the oldest are dropped and the loss logged. */
const MAX_QUEUED = 50_000;

/** A search as the server saw it (its id and time are the log's). */
export type SearchSeen = Omit<LoggedSearch, 'id' | 'at' | 'prefixes'>;

/** A click as reported: `position` from 1. */
export type ClickSeen = { readonly searchId: string; readonly position: number; readonly url: string };

/** What became of a reported click. */
export type ClickOutcome = 'counted' | 'repeated' | 'unknown-search' | 'not-shown';

export class SearchLog {
  /** Each session's search not yet logged: it may still be typed on. */
  private readonly typing = new Map<string, { search: LoggedSearch; last: number }>();
  private readonly recent = new Map<string, LoggedSearch>();
  /** Searches that another typed on took the place of (RECENT at most): a click on what one showed counts for the search that took its place. */
  private readonly replaced = new Map<string, { search: LoggedSearch; by: string }>();
  private readonly counted = new Set<string>();
  /** Each session's last search logged (SESSIONS at most): the next one within REFINE_MS refines it. */
  private readonly lastOf = new Map<string, { id: string; at: number }>();
  private searches: LoggedSearch[] = [];
  private clicks: { searchId: string; at: number; position: number; url: string }[] = [];
  private readonly timer: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();
  private dropped = 0;

  private readonly pruning: NodeJS.Timeout;

  /** `retentionDays`: searches older are deleted, at start and every day (analytics.retentionDays). */
  constructor(
    private readonly store: SearchLogStore,
    private readonly log: Log,
    private readonly retentionDays: number,
    /** The log's clock: a search's time, and where the reports' default range ends. */
    readonly now: () => number = Date.now,
  ) {
    this.timer = setInterval(() => void this.flush(), WRITE_EVERY_MS);
    this.timer.unref();
    const prune = () =>
      void this.prune(this.retentionDays)
        .then((n) => n && this.log.info(`search log: ${n} searches older than ${this.retentionDays} days deleted`))
        .catch((e: unknown) => this.log.warn(`search log: pruning failed: ${(e as Error).message}`));
    setImmediate(prune).unref();
    this.pruning = setInterval(prune, 86_400_000);
    this.pruning.unref();
  }

  /** Logs a search (once the person pauses, when it has a session); returns its id. */
  record(seen: SearchSeen): string {
    const at = this.now();
    const session = seen.session;
    const search: LoggedSearch = {
      id: randomUUID({ disableEntropyCache: false }),
      at,
      ...(session ? { session } : {}),
      source: seen.source,
      query: seen.query,
      understood: seen.understood,
      filters: seen.filters,
      page: seen.page,
      total: seen.total,
      shown: seen.shown,
      tookMs: seen.tookMs,
      prefixes: NO_PREFIXES,
    };
    if (!session) {
      this.queue(search);
      return search.id;
    }
    const before = this.typing.get(session);
    if (before && at - before.last < PAUSE_MS && goesOn(before.search.query, search.query)) {
      const prefixes = [...before.search.prefixes, before.search.query].filter((p) => p !== search.query).slice(-20);
      rememberMap(this.replaced, before.search.id, { search: before.search, by: search.id }, RECENT);
      this.typing.set(session, { search: { ...search, prefixes }, last: at });
    } else {
      if (before) this.queue(before.search);
      this.typing.set(session, { search, last: at });
    }
    return search.id;
  }

  /** A click on result `position` of search `searchId`: counted when that search showed that URL there. */
  async click(c: ClickSeen): Promise<ClickOutcome> {
    const replaced = this.replaced.get(c.searchId);
    if (replaced) {
      // (A page still showing a search typed on since — the same query submitted again, say:
      // checked against what it showed, counted for the search logged in its place.)
      if (replaced.search.shown[c.position - 1] !== c.url) return 'not-shown';
      const by = this.latest(replaced.by);
      if (!by) return 'unknown-search';
      const there = by.shown.indexOf(c.url);
      return this.count(by, there < 0 ? c : { ...c, position: there + 1 });
    }
    const search = this.latest(c.searchId) ?? (await this.store.search(c.searchId));
    if (!search) return 'unknown-search';
    if (search.shown[c.position - 1] !== c.url) return 'not-shown';
    return this.count(search, c);
  }

  /** The search `id` still typed on or logged lately, following the searches that took its place. */
  private latest(id: string): LoggedSearch | undefined {
    let at = id;
    for (let hops = 0; hops < 100; hops++) {
      const found = this.typingSearch(at) ?? this.recent.get(at);
      if (found) return found;
      const next = this.replaced.get(at);
      if (!next) return undefined;
      at = next.by;
    }
    return undefined;
  }

  private count(search: LoggedSearch, c: ClickSeen): ClickOutcome {
    // (The click ends the typing: its search is logged now.)
    if (search.session && this.typing.get(search.session)?.search.id === search.id) {
      this.typing.delete(search.session);
      this.queue(search);
    }
    const key = `${search.session ?? search.id}\n${search.understood}\n${c.url}`;
    if (this.counted.has(key)) return 'repeated';
    remember(this.counted, key, COUNTED);
    this.clicks.push({ searchId: search.id, at: this.now(), position: c.position, url: c.url });
    return 'counted';
  }

  /** Writes what is queued, and the searches typed on no more. */
  async flush(): Promise<void> {
    const at = this.now();
    for (const [session, t] of this.typing)
      if (at - t.last >= PAUSE_MS) {
        this.typing.delete(session);
        this.queue(t.search);
      }
    const searches = this.searches;
    const clicks = this.clicks;
    if (!searches.length && !clicks.length) return this.writing;
    this.searches = [];
    this.clicks = [];
    // (One write at a time, in order: a click is never written before its search. In slices of
    // WRITE_SLICE records, a turn of the event loop between: a search waits behind one at most.)
    this.writing = this.writing.then(async () => {
      for (let i = 0; i < searches.length || (i === 0 && clicks.length); i += WRITE_SLICE) {
        const last = i + WRITE_SLICE >= searches.length;
        const part = searches.slice(i, i + WRITE_SLICE);
        await this.store.append(part, last ? clicks : []).catch((e: unknown) => {
          this.log.warn(`search log: ${part.length} searches${last ? ` and ${clicks.length} clicks` : ''} not written: ${(e as Error).message}`);
        });
        if (!last) await new Promise((resolve) => setImmediate(resolve));
      }
    });
    return this.writing;
  }

  /** Deletes what is older than `days` days; returns how many searches went. */
  async prune(days: number): Promise<number> {
    return this.store.prune(this.now() - days * 86_400_000);
  }

  /** Logs every search still being typed and writes everything. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    clearInterval(this.pruning);
    for (const t of this.typing.values()) this.queue(t.search);
    this.typing.clear();
    await this.flush();
  }

  private typingSearch(id: string): LoggedSearch | undefined {
    for (const t of this.typing.values()) if (t.search.id === id) return t.search;
    return undefined;
  }

  private queue(logged: LoggedSearch): void {
    let search = logged;
    const { session } = logged;
    if (session) {
      const last = this.lastOf.get(session);
      if (last && search.at - last.at < REFINE_MS) search = { ...search, refines: last.id };
      rememberMap(this.lastOf, session, { id: search.id, at: search.at }, SESSIONS);
    }
    rememberMap(this.recent, search.id, search, RECENT);
    this.searches.push(search);
    if (this.searches.length + this.clicks.length > MAX_QUEUED) {
      this.searches.shift();
      if (this.dropped++ % 1000 === 0) this.log.warn(`search log: the store is not keeping up; ${this.dropped} searches dropped so far`);
    }
  }
}

/** Whether query `b` goes on from `a` as one types: a longer or a cut-back form of it. */
function goesOn(a: string, b: string): boolean {
  const x = a.trim().toLowerCase();
  const y = b.trim().toLowerCase();
  return x.startsWith(y) || y.startsWith(x);
}

function remember(set: Set<string>, key: string, max: number): void {
  if (set.size >= max) set.delete(set.values().next().value!);
  set.add(key);
}

function rememberMap<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  if (map.size >= max) map.delete(map.keys().next().value!);
  map.set(key, value);
}

/**
 * The search log of a server over `store`, when `analytics.enabled` and the log can be written (a
 * server over a SQLite file opened read-only logs nothing, and says so; a search node over
 * PostgreSQL writes to the one log every node shares).
 */
export function searchLogFor(
  settings: { readonly enabled: boolean; readonly retentionDays: number },
  store: { readonly searchLog: SearchLogStore },
  log: Log,
): SearchLog | undefined {
  if (!settings.enabled) return undefined;
  if (!store.searchLog.writable) {
    log.info('search log: off, the crawl database is open for reading only');
    return undefined;
  }
  return new SearchLog(store.searchLog, log, settings.retentionDays);
}
