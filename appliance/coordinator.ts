/**
 * A coordinator (`trawl serve --shards URL,URL,…`, cluster.shards): a search server that holds no
 * index and no store, answering from its shards (indexer/shards `ShardedSearcher`, reached over
 * HTTP: shard-client.ts). It asks every shard how it is each second — the searches' ETags follow
 * the shards' indexes, /healthz and /api/status report them.
 */
import type { Config } from '../config/schema.ts';
import { ShardedSearcher } from '../indexer/shards/index.ts';
import type { Log } from '../lib/log.ts';
import type { ApplianceStatus, ShardStatus } from '../model/index.ts';
import { HttpShards } from './shard-client.ts';

/** How often the shards are asked how they are. */
const CHECK_MS = 1000;

export class Coordinator {
  readonly searcher: ShardedSearcher;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<unknown> | undefined;

  constructor(
    config: Readonly<Config>,
    private readonly log: Log,
  ) {
    const { shards, shardTimeoutMs } = config.cluster;
    this.searcher = new ShardedSearcher(new HttpShards(shards, shardTimeoutMs, config.server), config.index.nearDuplicates.maxDistance);
  }

  /** Asks the shards once (so that the first answers know them), then every CHECK_MS; says when one goes or comes back. */
  async start(): Promise<void> {
    await this.check();
    this.timer = setInterval(() => void this.check(), CHECK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.checking;
  }

  /** The shards as last asked. */
  shards(): ShardStatus[] {
    return this.searcher.shards.map((s) => ({
      url: s.url,
      shard: s.shard ?? null,
      up: s.up,
      documents: s.documents,
      checkedAt: new Date(s.checkedAt).toISOString(),
      ms: s.ms,
      error: s.error ?? null,
    }));
  }

  /** The status of a server that crawls nothing: its shards and their documents. */
  status(): ApplianceStatus {
    return {
      crawl: {
        running: false,
        paused: false,
        fetched: 0,
        indexed: 0,
        queued: 0,
        inFlight: 0,
        failed: 0,
        retrying: 0,
        dead: 0,
        excluded: 0,
        redirected: 0,
        pagesPerSecond: 0,
        stats: null,
        hosts: [],
        rejections: [],
      },
      recrawl: { continuous: false, due: 0, nextDueAt: null, revisited: 0, changed: 0, unchanged: 0, removed: 0 },
      focus: null,
      shards: this.shards(),
      index: { documents: this.searcher.documentCount, terms: 0, lastFlushAt: null, lastFlushMs: null, lastFlushBytes: null },
      recent: [],
    };
  }

  private async check(): Promise<void> {
    if (this.checking) return;
    // (Before the first check, a shard is neither: each is told once.)
    const before = this.searcher.shards.map((s) => (s.checkedAt ? s.up : undefined));
    this.checking = this.searcher.check();
    try {
      await this.checking;
    } finally {
      this.checking = undefined;
    }
    this.searcher.shards.forEach((s, i) => {
      if (s.up && before[i] !== true) this.log.info(`shard ${s.url} answers (${s.documents} documents${s.shard ? `, shard ${s.shard}` : ''})`);
      if (!s.up && before[i] !== false) this.log.warn(`shard ${s.url} does not answer: ${s.error ?? 'unknown'} (searches say its results are missing)`);
    });
  }
}
