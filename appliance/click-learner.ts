/**
 * The click model (click-model.ts) kept up to date from the search log's store: at start, the
 * searches of the last LEARN_DAYS; then, every REFRESH_MS, those made since — from the store, not
 * from this process's log, so that every search node of a cluster learns from every node's
 * searches. A search is read once CLICK_LAG_MS old: its clicks have come by then (a click later
 * than that is not learned).
 */
import type { Log } from '../lib/log.ts';
import type { SearchLogStore } from '../store/index.ts';
import { ClickModel } from './click-model.ts';

/** How often the model reads the searches made since. */
export const REFRESH_MS = 30_000;
/** A search is read this long after it was made: its clicks are in by then. */
export const CLICK_LAG_MS = 2 * 60_000;
/** The days of searches learned from at start (the log keeps analytics.retentionDays). */
export const LEARN_DAYS = 90;
/** Searches read a time (a turn of the event loop between: a search never waits behind much). */
const PAGE = 500;

export class ClickLearner {
  readonly model = new ClickModel();
  /** Read up to (at, and the ids read at that millisecond). */
  private since: number;
  private readonly atSince = new Set<string>();
  private running: Promise<number> | undefined;
  /** Grows with each refresh that read searches (the answers' ETags change with it). */
  updates = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: SearchLogStore,
    private readonly log: Log,
    private readonly now: () => number = Date.now,
    private readonly lagMs = CLICK_LAG_MS,
  ) {
    this.since = now() - LEARN_DAYS * 86_400_000;
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
    this.timer.unref();
    setImmediate(() => void this.refresh()).unref();
  }

  /** What clicks taught of `query` (click-model.ts). */
  factors(query: string): { url: string; factor: number }[] {
    return this.model.factors(query);
  }

  /** Reads the searches made since, up to `lagMs` ago; returns how many (one refresh at a time). */
  refresh(): Promise<number> {
    this.running ??= this.read().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  close(): void {
    clearInterval(this.timer);
  }

  private async read(): Promise<number> {
    const until = this.now() - this.lagMs;
    let read = 0;
    try {
      for (;;) {
        const page = (await this.store.searches(this.since, PAGE)).filter((s) => !this.atSince.has(s.id) && s.at <= until);
        if (!page.length) break;
        const clicks = await this.store.clicksOf(page.map((s) => s.id));
        const bySearch = new Map<string, typeof clicks>();
        for (const c of clicks) {
          const of = bySearch.get(c.searchId);
          if (of) of.push(c);
          else bySearch.set(c.searchId, [c]);
        }
        for (const s of page) {
          this.model.add(s, bySearch.get(s.id) ?? []);
          if (s.at !== this.since) this.atSince.clear();
          this.since = s.at;
          this.atSince.add(s.id);
        }
        read += page.length;
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (e) {
      this.log.warn(`click learning: the search log could not be read: ${(e as Error).message}`);
    }
    if (read) this.updates++;
    return read;
  }
}
