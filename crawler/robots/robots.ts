/**
 * robots.txt, with the fetch rules of RFC 9309 around a parser made for the job (robots-parser):
 * 2xx → its rules; 4xx → allow all; 5xx or unreachable → nothing may be fetched now, retry later;
 * redirects followed (up to 5 hops); only the first 500 KiB count; cached per host for 24 hours
 * (in the store, so a resumed crawl does not ask again). The product token of the user agent picks
 * the group. What robots-parser gets wrong of RFC 9309 is set right around it in rules.ts.
 */
import type { RobotsStore } from '../../store/index.ts';
import type { ErrorCode } from '../../model/index.ts';
import { clip, fromFetchCode } from '../errors.ts';
import type { PageFetcher } from '../fetch/fetcher.ts';
import { parseRobotsTxt } from './rules.ts';

export type RobotsRules =
  | { readonly state: 'rules' | 'allow-all'; isAllowed(url: string): boolean; readonly crawlDelaySeconds?: number; readonly sitemaps: readonly string[] }
  /**
   * robots.txt could not be had (5xx, timeout, unreachable): fetch nothing from the host for now.
   * `error`: why, when the host could not be reached at all (DNS, refused, TLS…) — the real cause
   * of the host's failure, which its URLs are marked with if it is given up.
   */
  | { readonly state: 'unavailable'; readonly detail: string; readonly error?: ErrorCode };

/** Rules that can be followed: a host's robots.txt was read (or allows all). */
export type AllowedRules = Exclude<RobotsRules, { readonly state: 'unavailable' }>;

/** Where the crawl gets a host's robots.txt rules (RobotsCache is the one Trawl runs). */
export interface RobotsSource {
  /** The rules for `origin`'s host if known and fresh; undefined: load() must run first. */
  cached(origin: string): Promise<RobotsRules | undefined>;
  /** Fetches robots.txt for `origin` (e.g. `https://example.org`) and keeps the result. */
  load(origin: string, signal?: AbortSignal): Promise<RobotsRules>;
}

const TTL_MS = 24 * 3600_000;
const UNAVAILABLE_TTL_MS = 60_000;
const MAX_BYTES = 500 * 1024;
const MAX_HOPS = 5;

export class RobotsCache implements RobotsSource {
  private readonly memory = new Map<string, { rules: RobotsRules; at: number }>();
  private readonly token: string;

  constructor(
    private readonly store: RobotsStore,
    private readonly fetcher: PageFetcher,
    userAgent: string,
    private readonly now: () => number = Date.now,
  ) {
    this.token = productToken(userAgent);
  }

  /**
   * The rules for `origin`'s host if known and fresh (from memory, else from the store); undefined
   * means `load` must run first.
   */
  async cached(origin: string): Promise<RobotsRules | undefined> {
    const host = new URL(origin).host;
    const mem = this.memory.get(host);
    if (mem && this.fresh(mem.rules, mem.at)) return mem.rules;
    const entry = await this.store.get(host);
    if (!entry) return undefined;
    const rules = this.interpret(origin, entry.status, entry.body);
    if (!this.fresh(rules, entry.fetchedAt)) return undefined;
    this.memory.set(host, { rules, at: entry.fetchedAt });
    return rules;
  }

  /** Fetches robots.txt for `origin` (e.g. `https://example.org`) and caches the result. */
  async load(origin: string, signal?: AbortSignal): Promise<RobotsRules> {
    const host = new URL(origin).host;
    let url = new URL('/robots.txt', origin).href;
    let status = 0;
    let body = '';
    let detail = 'unreachable';
    for (let hop = 0; hop <= MAX_HOPS; hop++) {
      const res = await this.fetcher.fetch(url, signal);
      if (res.kind === 'error') {
        detail = clip(`${res.code}: ${res.message}`);
        break;
      }
      if (res.status >= 300 && res.status < 400 && res.location) {
        url = new URL(res.location, url).href;
        detail = 'too many redirects';
        continue;
      }
      status = res.status;
      body = res.status < 300 ? res.body.subarray(0, MAX_BYTES).toString('utf8') : '';
      break;
    }
    const at = this.now();
    await this.store.put(host, { fetchedAt: at, status, body: status ? body : detail });
    const rules = this.interpret(origin, status, status ? body : detail);
    this.memory.set(host, { rules, at });
    return rules;
  }

  private interpret(origin: string, status: number, body: string): RobotsRules {
    if (status >= 200 && status < 300) {
      const robot = parseRobotsTxt(new URL('/robots.txt', origin).href, body);
      const delay = robot.crawlDelay(this.token);
      return {
        state: 'rules',
        isAllowed: (u) => robot.isAllowed(u, this.token),
        ...(delay !== undefined ? { crawlDelaySeconds: delay } : {}),
        sitemaps: [...robot.sitemaps],
      };
    }
    if (status >= 400 && status < 500) return { state: 'allow-all', isAllowed: () => true, sitemaps: [] };
    if (status) return { state: 'unavailable', detail: `robots.txt answered ${status}` };
    // Unreachable: the body holds the fetch's failure, "code: message".
    const code = /^([a-z-]+): /.exec(body)?.[1];
    const error = code && code !== 'aborted' ? fromFetchCode(code) : undefined;
    return { state: 'unavailable', detail: body ? `robots.txt could not be fetched: ${body}` : 'unreachable', ...(error ? { error } : {}) };
  }

  private fresh(rules: RobotsRules, at: number): boolean {
    return this.now() - at < (rules.state === 'unavailable' ? UNAVAILABLE_TTL_MS : TTL_MS);
  }
}

/** `TrawlBot/0.1 (+https://…)` → `TrawlBot`: what robots.txt groups are matched against. */
export function productToken(userAgent: string): string {
  return userAgent.trim().split(/[/\s]/)[0] || userAgent;
}
