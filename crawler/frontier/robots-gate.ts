/**
 * robots.txt as a gate on a host's URLs, for both frontier adapters: while a host's robots.txt
 * loads, its URLs wait and other hosts go on; a URL it disallows is handed out marked so (recorded
 * excluded, never fetched); its Crawl-delay sets the host's delay — from rules this run loaded, or
 * cached by an earlier run or another worker. A host whose robots.txt cannot be had after
 * ROBOTS_GIVE_UP_AFTER loads is given up, with the real cause when the host could not be reached at
 * all (DNS, refused, TLS) rather than as a robots.txt problem.
 */
import type { Log } from '../../lib/log.ts';
import type { ErrorCode } from '../../model/index.ts';
import { ERRORS } from '../errors.ts';
import type { AllowedRules, RobotsRules, RobotsSource } from '../robots/robots.ts';
import type { FrontierRun } from './frontier.ts';
import type { HostScheduler } from './hosts.ts';

/** Loads of a host's robots.txt that may fail before the host is given up. */
export const ROBOTS_GIVE_UP_AFTER = 3;

export class RobotsGate {
  private readonly loading = new Set<string>();
  private readonly failures = new Map<string, number>();
  /** Hosts whose Crawl-delay the scheduler knows (rules cached by another run or worker included). */
  private readonly delaysKnown = new Set<string>();

  constructor(
    private readonly robots: RobotsSource,
    private readonly scheduler: HostScheduler,
    private readonly now: () => number,
    /** Gives a host up: its URLs die, and later ones at once. */
    private readonly giveUp: (host: string, error: ErrorCode, reason: string) => Promise<void>,
    private readonly log: Log | undefined,
  ) {}

  /** True while a robots.txt is being loaded. */
  get busy(): boolean {
    return this.loading.size > 0;
  }

  isLoading(host: string): boolean {
    return this.loading.has(host);
  }

  /** The rules a URL of `host` is under, when they are known and usable; undefined: load() them first. */
  async rulesFor(host: string, fetchUrl: string): Promise<AllowedRules | undefined> {
    const rules = await this.robots.cached(new URL(fetchUrl).origin);
    if (!rules || rules.state === 'unavailable') return undefined;
    if (!this.delaysKnown.has(host)) {
      this.delaysKnown.add(host);
      this.scheduler.setCrawlDelay(host, rules.crawlDelaySeconds);
    }
    return rules;
  }

  /** Loads the robots.txt of a URL's host while the host's URLs wait; other hosts go on. The run is woken when it is done. */
  load(host: string, fetchUrl: string, run: FrontierRun): void {
    if (this.loading.has(host)) return;
    const origin = new URL(fetchUrl).origin;
    this.loading.add(host);
    this.scheduler.setWaitingForRobots(host, true);
    this.scheduler.begin(host);
    void this.robots
      .load(origin, run.signal)
      .then((rules) => this.loaded(host, origin, rules, run))
      .catch((e: unknown) => this.log?.warn(`robots.txt of ${host}: ${(e as Error).message}`))
      .finally(() => {
        this.loading.delete(host);
        this.scheduler.setWaitingForRobots(host, false);
        run.wake();
      });
  }

  private async loaded(host: string, origin: string, rules: RobotsRules, run: FrontierRun): Promise<void> {
    const ok = rules.state !== 'unavailable';
    this.scheduler.end(host, this.now(), { ok, ...(ok ? {} : { error: 'robots-unavailable' }) });
    if (rules.state === 'unavailable') {
      const failures = (this.failures.get(host) ?? 0) + 1;
      this.failures.set(host, failures);
      // (A failure that trying again cannot mend — TLS, an address not allowed — gives up at once.)
      if (failures < ROBOTS_GIVE_UP_AFTER && !(rules.error && !ERRORS[rules.error].retry)) return;
      const error = rules.error ?? 'robots-unavailable';
      const reason = rules.error
        ? `${ERRORS[error].describe} (${failures} tries; ${rules.detail})`
        : `robots.txt unavailable ${failures} times (${rules.detail})`;
      await this.giveUp(host, error, reason);
      return;
    }
    this.failures.delete(host);
    this.scheduler.setCrawlDelay(host, rules.crawlDelaySeconds);
    await run.robotsLoaded(origin, rules);
  }
}
