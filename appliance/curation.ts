/**
 * The search console's levers, as a search node applies them (issue 37): the synonyms and the
 * rules kept in the store (every node of a cluster reads one set, and sees another's change within
 * POLL_MS), what clicks taught (click-learner.ts), and the searcher that applies them all to the
 * next search — on the page, in the widget, in the API, and as a shard of a cluster.
 *
 * The config's `search.synonyms` are put in the store at start when they changed since the config
 * last put them (so an edit of the file takes effect, and an edit in the console is not undone by
 * a restart).
 */
import type { Normalizer } from '../crawler/urls/index.ts';
import type { Adjustments, SearchOptions, SearchResponse, Searcher } from '../indexer/index.ts';
import { Synonyms } from '../indexer/index.ts';
import type { Log } from '../lib/log.ts';
import {
  type CurationChange,
  MAX_PINS,
  MAX_RULES,
  MAX_SYNONYMS,
  parseSynonym,
  PREFIX_FACTOR_BOUNDS,
  type QueryRule,
  type SearchRules,
} from '../model/index.ts';
import { type CurationStore, MAX_CURATION_HISTORY, type SearchLogStore } from '../store/index.ts';
import { ClickLearner } from './click-learner.ts';
import { queryWords } from './click-model.ts';

/** How often a node asks the store whether the synonyms or rules changed (one cheap query). */
export const POLL_MS = 5000;
const NO_RULES: SearchRules = { queries: [], prefixes: [] };

/** A change refused, with the reason for its author (the API's 400). */
export class CurationError extends Error {}

export class Curation {
  /** The store's synonyms, compiled (undefined: none); their lines are `compiled.lines`. */
  private compiled: Synonyms | undefined;
  private rules: SearchRules = NO_RULES;
  private seen = -1;
  private reloads = 0;
  private readonly timer: NodeJS.Timeout;

  private constructor(
    private readonly store: CurationStore,
    private readonly normalize: Normalizer,
    private readonly log: Log,
    /** What clicks taught (absent: search.learnFromClicks is off, or no log to learn from). */
    readonly learner: ClickLearner | undefined,
  ) {
    this.timer = setInterval(() => void this.reload().catch((e: unknown) => this.log.warn(`curation: ${(e as Error).message}`)), POLL_MS);
    this.timer.unref();
  }

  static async open(
    store: CurationStore,
    settings: { readonly synonyms: readonly string[] },
    normalize: Normalizer,
    log: Log,
    learner?: ClickLearner,
  ): Promise<Curation> {
    const c = new Curation(store, normalize, log, learner);
    if (store.writable) {
      // (The whole history kept: the config's last put may lie behind many edits in the console.)
      const [last] = (await store.history(MAX_CURATION_HISTORY, 'synonyms')).filter((h) => h.by === 'config');
      const fromConfig = JSON.stringify(settings.synonyms);
      if (JSON.stringify(last?.value ?? []) !== fromConfig && (last || settings.synonyms.length))
        await store.put({ at: Date.now(), what: 'synonyms', by: 'config', value: checkedSynonyms(settings.synonyms) });
    }
    await c.reload();
    return c;
  }

  /** The synonyms' lines and the rules as they are now. */
  get current(): { readonly synonyms: readonly string[]; readonly rules: SearchRules } {
    return { synonyms: this.compiled?.lines ?? [], rules: this.rules };
  }

  /** The synonyms applied to every search (undefined: none). */
  get synonyms(): Synonyms | undefined {
    return this.compiled;
  }

  /** Grows with each change of the levers: of the synonyms or rules, or what clicks taught. */
  get changes(): number {
    return this.reloads + (this.learner?.updates ?? 0);
  }

  /** A search's options with the levers: the synonyms, and what the rules and the clicks do to `query`. */
  optionsFor(query: string, options: SearchOptions): SearchOptions {
    const adjust = this.adjustFor(query);
    const synonyms = this.compiled;
    if (!adjust && !synonyms) return options;
    return { ...options, ...(adjust ? { adjust } : {}), ...(synonyms ? { synonyms } : {}) };
  }

  /** What the rules and the clicks do to `query` (undefined: nothing). */
  adjustFor(query: string): Adjustments | undefined {
    const q = queryWords(query).join(' ');
    const words = new Set(q.split(' '));
    const pin: string[] = [];
    const hide: string[] = [];
    for (const r of this.rules.queries) {
      const hit = 'query' in r.match ? r.match.query === q : r.match.contains.every((w) => words.has(w));
      if (!hit) continue;
      for (const u of r.pin) if (!pin.includes(u) && pin.length < MAX_PINS) pin.push(u);
      hide.push(...r.hide);
    }
    const learned = this.learner?.factors(q) ?? [];
    if (!pin.length && !hide.length && !learned.length && !this.rules.prefixes.length) return undefined;
    return { pin, hide, prefixes: this.rules.prefixes, learned };
  }

  /** Replaces the synonyms (each line checked: CurationError names a bad one); `by`: who. */
  async putSynonyms(lines: readonly string[], by: string): Promise<void> {
    await this.put({ at: Date.now(), what: 'synonyms', by, value: checkedSynonyms(lines) });
  }

  /** Replaces the rules (URLs normalized as the crawl stores them; CurationError names what is wrong). */
  async putRules(rules: SearchRules, by: string): Promise<void> {
    await this.put({ at: Date.now(), what: 'rules', by, value: this.checkedRules(rules) });
  }

  history(limit: number): Promise<CurationChange[]> {
    return this.store.history(limit);
  }

  close(): void {
    clearInterval(this.timer);
    this.learner?.close();
  }

  private async put(change: CurationChange): Promise<void> {
    if (!this.store.writable) throw new CurationError('the crawl database is open for reading only: change the synonyms and rules where it is written');
    await this.store.put(change);
    await this.reload();
  }

  /** Reads the store's synonyms and rules when they changed. */
  async reload(): Promise<void> {
    const version = await this.store.version();
    if (version === this.seen) return;
    const [synonyms, rules] = await Promise.all([this.store.synonyms(), this.store.rules()]);
    this.compiled = synonyms?.lines.length ? Synonyms.fromLines(synonyms.lines) : undefined;
    this.rules = rules?.rules ?? NO_RULES;
    this.seen = version;
    this.reloads++;
  }

  private checkedRules(rules: SearchRules): SearchRules {
    if (rules.queries.length + rules.prefixes.length > MAX_RULES) throw new CurationError(`at most ${MAX_RULES} rules`);
    const url = (u: string, where: string) => {
      const n = this.normalize(u);
      if (!n.ok) throw new CurationError(`${where}: "${u}" is not a URL Trawl can crawl (${n.reason})`);
      return n.url;
    };
    const queries = rules.queries.map((r, i): QueryRule => {
      const where = `rule ${i + 1}`;
      const match = 'query' in r.match ? { query: queryWords(r.match.query).join(' ') } : { contains: [...new Set(r.match.contains.flatMap(queryWords))] };
      if ('query' in match ? !match.query : !match.contains.length) throw new CurationError(`${where}: a query, or words it contains, to match`);
      if (r.pin.length > MAX_PINS) throw new CurationError(`${where}: at most ${MAX_PINS} pinned URLs`);
      if (!r.pin.length && !r.hide.length) throw new CurationError(`${where}: pins or hides nothing`);
      return { match, pin: r.pin.map((u) => url(u, where)), hide: r.hide.map((u) => url(u, where)) };
    });
    const prefixes = rules.prefixes.map((p, i) => {
      const { min, max } = PREFIX_FACTOR_BOUNDS;
      if (!(p.factor >= min && p.factor <= max)) throw new CurationError(`prefix rule ${i + 1}: a factor from ${min} to ${max}`);
      if (!/^https?:\/\/[^/]+/i.test(p.prefix)) throw new CurationError(`prefix rule ${i + 1}: "${p.prefix}" is not the start of a URL (http://host/path)`);
      return { prefix: p.prefix, factor: p.factor };
    });
    return { queries, prefixes };
  }
}

function checkedSynonyms(lines: readonly string[]): string[] {
  if (lines.length > MAX_SYNONYMS) throw new CurationError(`at most ${MAX_SYNONYMS} synonym lines`);
  const out: string[] = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    const parsed = parseSynonym(line);
    if ('error' in parsed) throw new CurationError(parsed.error);
    out.push(line.trim());
  }
  return out;
}

/** The searcher with the levers applied to every search: synonyms, pins, hides, sections, clicks. */
export class CuratedSearcher implements Searcher {
  constructor(
    private readonly inner: Searcher,
    private readonly curation: Curation,
  ) {}

  search(query: string, options: SearchOptions = {}): Promise<SearchResponse> {
    return this.inner.search(query, this.curation.optionsFor(query, options));
  }

  suggest(query: string, limit?: number): Promise<string[]> {
    return this.inner.suggest ? this.inner.suggest(query, limit) : Promise.resolve([]);
  }

  get documentCount(): number {
    return this.inner.documentCount;
  }

  /** (A change of the levers changes answers: the ETags must change with it.) */
  get version(): number {
    return this.inner.version + this.curation.changes;
  }
}

/** The levers as the search server takes them (search-ui/deps.ts SearchLevers): a refused change answers its reason. */
export function leversOf(curation: Curation): {
  current: () => Curation['current'];
  putSynonyms: (lines: readonly string[], by: string) => Promise<{ error: string } | undefined>;
  putRules: (rules: SearchRules, by: string) => Promise<{ error: string } | undefined>;
  history: (limit: number) => Promise<CurationChange[]>;
} {
  const refused = async (change: Promise<void>) => {
    try {
      await change;
      return undefined;
    } catch (e) {
      if (e instanceof CurationError) return { error: e.message };
      throw e;
    }
  };
  return {
    current: () => curation.current,
    putSynonyms: (lines, by) => refused(curation.putSynonyms(lines, by)),
    putRules: (rules, by) => refused(curation.putRules(rules, by)),
    history: (limit) => curation.history(limit),
  };
}

/**
 * A search node's levers: the store's synonyms and rules (the config's synonyms put there when
 * they changed), and — with `search.learnFromClicks` and a search log — what clicks teach.
 */
export async function curationFor(
  settings: { readonly search: { readonly synonyms: readonly string[]; readonly learnFromClicks: boolean }; readonly analytics: { readonly enabled: boolean } },
  store: { readonly curation: CurationStore; readonly searchLog: SearchLogStore },
  normalize: Normalizer,
  log: Log,
): Promise<Curation> {
  const learner = settings.search.learnFromClicks && settings.analytics.enabled ? new ClickLearner(store.searchLog, log) : undefined;
  return Curation.open(store.curation, settings.search, normalize, log, learner);
}
