/**
 * Per-stage crawl statistics: how many pages each stage handled and the time it spent, so that a
 * slow stage shows itself. The crawler emits a snapshot every second (`stats` event); the CLI
 * progress line and /api/status read the latest one.
 */

import { STAGES, type CrawlStats, type Stage, type StageFigures } from '../model/index.ts';

export type { CrawlStats } from '../model/index.ts';

export class StatsRecorder {
  private requests = 0;
  private bytes = 0;
  private readonly stages = Object.fromEntries(STAGES.map((s) => [s, { count: 0, ms: 0 }])) as Record<Stage, { count: number; ms: number }>;
  private readonly outcomes: Record<string, number> = {};
  private readonly recent: number[] = [];

  constructor(private readonly now: () => number) {}

  request(bytes: number): void {
    this.requests++;
    this.bytes += bytes;
    this.recent.push(this.now());
  }

  outcome(kind: string): void {
    this.outcomes[kind] = (this.outcomes[kind] ?? 0) + 1;
  }

  /** Adds `ms` to a stage (one page handled). */
  time(stage: Stage, ms: number): void {
    const s = this.stages[stage];
    s.count++;
    s.ms += ms;
  }

  /** Requests completed per second over the last 10 seconds. */
  pagesPerSecond(): number {
    const cutoff = this.now() - 10_000;
    let drop = 0;
    while (drop < this.recent.length && this.recent[drop]! < cutoff) drop++;
    if (drop) this.recent.splice(0, drop);
    return Math.round((this.recent.length / 10) * 10) / 10;
  }

  snapshot(): CrawlStats {
    const stages = Object.fromEntries(STAGES.map((s) => [s, { count: this.stages[s].count, ms: Math.round(this.stages[s].ms) }])) as Record<
      Stage,
      StageFigures
    >;
    return { requests: this.requests, bytes: this.bytes, pagesPerSecond: this.pagesPerSecond(), stages, outcomes: { ...this.outcomes } };
  }
}
