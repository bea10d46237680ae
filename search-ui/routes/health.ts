/**
 * What operators and load balancers ask: `GET /healthz` (alive, and whether the store answers —
 * a node whose store is away is taken out of rotation, its index no longer following the crawl;
 * a coordinator, whether some shard answers) and `GET /metrics` (Prometheus: metrics.ts).
 */
import type { Routes } from '../parts.ts';

export const health: Routes = (app, parts) => {
  const { deps, metrics } = parts;
  app.get('/metrics', async (c) => c.body(await metrics.render(await parts.status()), 200, { 'content-type': metrics.contentType }));

  app.get('/healthz', (c) => {
    if (deps.shards) {
      // A coordinator answers while some shard does (saying which are missing), so a load balancer keeps it.
      const shards = deps.shards().map((x) => ({ url: x.url, shard: x.shard, up: x.up, documents: x.documents, ...(x.error ? { error: x.error } : {}) }));
      const up = shards.filter((x) => x.up).length;
      return c.json({ ok: up > 0, documents: deps.searcher.documentCount, shards }, up > 0 ? 200 : 503);
    }
    const store = deps.storeHealth?.() ?? { up: true };
    if (store.up) return c.json({ ok: true, documents: deps.searcher.documentCount });
    return c.json(
      { ok: false, documents: deps.searcher.documentCount, store: 'down', since: new Date(store.downSince!).toISOString(), error: store.error ?? 'unknown' },
      503,
    );
  });
};
