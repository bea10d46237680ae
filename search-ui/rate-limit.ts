/**
 * The JSON API's rate limit: a token bucket per client address — `rate` requests a second, bursts
 * of twice that. Buckets of addresses that have been quiet for a minute are forgotten, so memory
 * stays bounded. (The web pages are not limited: a person cannot type that fast, and the instant
 * search asks /, debounced.)
 */
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import { sameToken } from './access.ts';
import { HttpError } from './errors.ts';

/** Buckets kept before the quiet ones are swept. */
const SWEEP_ABOVE_BUCKETS = 10_000;
/** How long an address must have been quiet for its bucket to be swept. */
const QUIET_MS = 60_000;

/** Token buckets, one per key (a client address). */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly burst: number;

  constructor(
    private readonly rate: number,
    private readonly now: () => number = Date.now,
  ) {
    this.burst = rate * 2;
  }

  /** Takes a token for `key`: 0 if it may go on, else how many ms until it may. */
  take(key: string): number {
    const now = this.now();
    if (this.buckets.size > SWEEP_ABOVE_BUCKETS) this.forgetQuiet(now);
    const b = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.rate);
    b.at = now;
    this.buckets.set(key, b);
    if (b.tokens < 1) return Math.ceil(((1 - b.tokens) / this.rate) * 1000);
    b.tokens -= 1;
    return 0;
  }

  private forgetQuiet(now: number): void {
    for (const [k, b] of this.buckets) if (now - b.at > QUIET_MS) this.buckets.delete(k);
  }
}

/**
 * `rate` requests a second per client address, else 429 (rate-limited) with Retry-After. A request
 * to /api/shard/* carrying the admin token is not counted: a coordinator asks a shard for every
 * user's search, not at one client's rate.
 */
export function apiRateLimit(rate: number, adminToken: string | undefined): MiddlewareHandler {
  const limiter = new RateLimiter(rate);
  const coordinator = adminToken ? `Bearer ${adminToken}` : undefined;
  return async (c, next) => {
    if (coordinator && c.req.path.startsWith('/api/shard/') && sameToken(c.req.header('authorization') ?? '', coordinator)) return next();
    const wait = limiter.take(clientOf(c));
    if (wait > 0) throw new HttpError(429, 'rate-limited', 'too many requests from this address: slow down', { 'retry-after': String(Math.ceil(wait / 1000)) });
    await next();
  };
}

/** The client's address (node:http), or one key for all when there is none (app.request in tests). */
function clientOf(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'local';
  } catch {
    return 'local';
  }
}
