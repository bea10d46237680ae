/**
 * A token bucket per client address: `rate` requests a second, bursts of twice that. Buckets of
 * addresses that have been quiet for a minute are forgotten, so memory stays bounded.
 */
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
    if (this.buckets.size > 10_000) this.forgetQuiet(now);
    const b = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.rate);
    b.at = now;
    this.buckets.set(key, b);
    if (b.tokens < 1) return Math.ceil(((1 - b.tokens) / this.rate) * 1000);
    b.tokens -= 1;
    return 0;
  }

  private forgetQuiet(now: number): void {
    for (const [k, b] of this.buckets) if (now - b.at > 60_000) this.buckets.delete(k);
  }
}
