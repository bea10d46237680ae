/**
 * How a coordinator reaches its shards (indexer/shards `ShardTransport`): JSON over HTTP to each
 * shard's /api/shard/*, each request bounded by `cluster.shardTimeoutMs` — a shard that is down,
 * refuses, or is slower is an error here, which the coordinator reports as missing. Requests carry
 * the admin token when there is one (it passes a shard's `server.auth` and its rate limit), else
 * this server's own `server.auth` credentials: a cluster's nodes share one config.
 */
import type { Config } from '../config/schema.ts';
import type { SearchHit } from '../indexer/index.ts';
import type { CorpusStats, SearchAsked, ShardAnswer, ShardInfo, ShardSuggestion, ShardTransport, TermReport, TermsAsked } from '../indexer/shards/index.ts';

export class HttpShards implements ShardTransport {
  readonly shards: readonly string[];
  private readonly authorization: string | undefined;

  constructor(
    urls: readonly string[],
    private readonly timeoutMs: number,
    auth: Pick<Config['server'], 'adminToken' | 'auth'>,
  ) {
    this.shards = urls.map((u) => (u.endsWith('/') ? u : `${u}/`));
    const basic = auth.auth?.basic;
    const bearer = auth.auth?.bearer;
    this.authorization = auth.adminToken
      ? `Bearer ${auth.adminToken}`
      : basic
        ? `Basic ${Buffer.from(`${basic.username}:${basic.password.reveal()}`).toString('base64')}`
        : bearer
          ? `Bearer ${bearer.token.reveal()}`
          : undefined;
  }

  terms(shard: number, asked: TermsAsked): Promise<TermReport> {
    return this.ask(shard, 'api/shard/terms', asked);
  }

  search(shard: number, asked: SearchAsked): Promise<ShardAnswer> {
    return this.ask(shard, 'api/shard/search', asked);
  }

  suggest(shard: number, asked: { q: string; limit: number; corpus?: CorpusStats }): Promise<ShardSuggestion[]> {
    return this.ask(shard, 'api/shard/suggest', asked);
  }

  hits(shard: number, asked: { ids: readonly number[]; marked: readonly string[]; words?: number }): Promise<SearchHit[]> {
    return this.ask(shard, 'api/shard/hits', asked);
  }

  info(shard: number): Promise<ShardInfo> {
    return this.ask(shard, 'api/shard/info');
  }

  /** One request, with its answer as JSON; any failure (refused, timed out, an error answer) is an Error saying what. */
  private async ask<T>(shard: number, path: string, body?: unknown): Promise<T> {
    try {
      const res = await fetch(new URL(path, this.shards[shard]), {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json', 'accept-encoding': 'identity', ...(this.authorization ? { authorization: this.authorization } : {}) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (res.ok) return (await res.json()) as T;
      const answer = (await res.json().catch(() => undefined)) as { error?: string } | undefined;
      throw new ShardAnswerError(`HTTP ${res.status}${answer?.error ? `: ${answer.error}` : ''}`);
    } catch (e) {
      const err = e as Error & { cause?: { code?: string; message?: string } };
      if (err instanceof ShardAnswerError) throw err;
      if (err.name === 'TimeoutError') throw new Error(`no answer within ${this.timeoutMs} ms (cluster.shardTimeoutMs)`);
      throw new Error(err.cause?.code ?? err.cause?.message ?? err.message);
    }
  }
}

/** A shard answered, with an error. */
class ShardAnswerError extends Error {}
