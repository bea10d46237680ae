/**
 * The admin actions on a running crawl (POST /api/seeds, pause, resume, recrawl; DELETE
 * /api/documents): what they change in the store, the index and the crawl.
 */
import type { Crawler, HostScheduler, UrlPolicy } from '../crawler/index.ts';
import type { Target } from '../model/index.ts';
import type { Store } from '../store/index.ts';
import type { IndexFeed } from './index-feed.ts';

/** The running crawl an action acts on. */
export type RunningCrawl = { readonly crawler: Crawler; readonly scheduler: HostScheduler; readonly policy: UrlPolicy };

/** A URL as the frontier keeps it (normalized), or as given when it cannot be normalized. */
export function identity(url: string, policy: UrlPolicy | undefined): string {
  const n = policy?.normalize(url);
  return n?.ok ? n.url : url;
}

/** Queues pages again: one URL, a host's, or all (the crawl runs again if it had finished). */
export async function recrawl(store: Store, crawl: RunningCrawl, target: Target): Promise<{ queued: number }> {
  const t = 'url' in target ? { url: identity(target.url, crawl.policy) } : target;
  const { count, hosts } = await store.urls.requeue(t);
  for (const h of hosts) crawl.scheduler.addWork(h);
  if (count) crawl.crawler.wake();
  return { queued: count };
}

/**
 * Removes a URL's or a host's pages from the store and the index, and marks their URLs excluded
 * ("removed by an admin") so that the crawl does not bring them back.
 */
export async function remove(
  store: Store,
  feed: IndexFeed,
  policy: UrlPolicy | undefined,
  target: { readonly url: string } | { readonly host: string },
): Promise<{ removed: number }> {
  const t = 'url' in target ? { url: identity(target.url, policy) } : target;
  let removed = 0;
  for (const id of await store.urls.exclude(t)) {
    const seq = await store.documents.remove(id);
    if (seq === undefined) continue;
    await feed.remove(id, seq);
    removed++;
  }
  return { removed };
}
