/**
 * Test fixture for the crawler's integration tests: an appliance (the crawler wired to real stages,
 * as in production) over a fresh data directory, with settings quick enough for the fake web.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Appliance } from '../appliance/index.ts';
import { loadConfig, type ConfigInput } from '../config/index.ts';

export const UA = 'TrawlBot/9.9 (+https://example.org/test)';

/** An appliance crawling `seeds`, quick settings overridden by `extra`, in `dataDir` (a fresh one by default). */
export const open = async (seeds: string[], extra: ConfigInput = {}, dataDir = mkdtempSync(join(tmpdir(), 'trawl-crawl-'))) =>
  await Appliance.open(
    loadConfig({
      overrides: {
        seeds,
        userAgent: UA,
        concurrency: 4,
        perHost: { delayMs: 0, maxConnections: 4 },
        limits: { maxDepth: 6, maxBodyBytes: 100_000, timeoutMs: 2000 },
        retry: { maxAttempts: 3, baseDelayMs: 20 },
        dataDir,
        ...extra,
      },
    }),
    { lockFor: 'test' },
  );
