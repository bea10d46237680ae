/**
 * Link admission: raw links found on a page (or in a sitemap) → the URLs to queue, the rejections
 * of the others by reason, and the anchor text of the links (for the index's anchor field).
 *
 * Links known to be in the frontier skip normalization and the store: a bounded cache of links
 * seen before (seen-cache.ts) answers for them, and they are counted as already seen. On rust-doc
 * most of a page's links were seen before, and normalizing them and asking the store again was a
 * third of the main thread's time.
 */
import type { AnchorLink, NewUrl } from '../model/index.ts';
import type { Slices } from '../lib/slices.ts';
import { SeenCache } from './frontier/seen-cache.ts';
import { admit, type UrlPolicy } from './urls/filters.ts';

/** A link as found: its URL (relative or absolute), a sitemap's <lastmod>, its anchor text. */
export type RawLink = { readonly url: string; readonly lastmod?: string; readonly text?: string };

/** Links found in one place, and what the URLs they lead to inherit. */
export type LinkBatch = {
  readonly links: readonly RawLink[];
  readonly depth: number;
  /** What relative links are resolved against. */
  readonly base?: string | undefined;
  /** The page's identity URL: the links' anchor text is recorded for their targets. None for sitemaps. */
  readonly source?: string | undefined;
  /** Focused crawl: the tunnel count the URLs get (crawler/focus/focus.ts). */
  readonly tunnel: number;
};

export type Admitted = {
  readonly urls: NewUrl[];
  readonly rejected: Map<string, number>;
  /** The anchor text of links, by the page they are on. */
  readonly anchors: { readonly source: string; readonly links: AnchorLink[] }[];
  /** Links to remember once they are in the frontier (link → identity). */
  readonly remember: Map<string, string>;
  /** The time admission took, in ms: its work, not its waits for a turn. */
  ms: number;
};

/** Links admitted between two asks for a turn of the thread's slices. */
const LINKS_PER_TURN = 64;

const ABSOLUTE = /^https?:\/\//i;

export class LinkAdmitter {
  private readonly seen = new SeenCache();

  constructor(private readonly policy: UrlPolicy) {}

  /**
   * Normalizes and filters the links of the batches (the seen-set itself is the store's, at
   * enqueue). With `slices`, it asks for a turn every LINKS_PER_TURN links: a page can hold
   * thousands of links (rustdoc's error index: 1,040 playground URLs of ~360 characters, ~100 ms
   * to normalize), and a search must not wait behind all of them.
   */
  async admit(batches: readonly LinkBatch[], slices?: Slices): Promise<Admitted> {
    const out: Admitted = { urls: [], rejected: new Map(), anchors: [], remember: new Map(), ms: 0 };
    let cached = 0;
    let n = 0;
    let t0 = performance.now();
    for (const { links, depth, base, source, tunnel } of batches) {
      const anchors: AnchorLink[] = [];
      for (const link of links) {
        if (++n % LINKS_PER_TURN === 0 && slices) {
          const turn = slices.turn();
          if (turn) {
            out.ms += performance.now() - t0;
            await turn;
            t0 = performance.now();
          }
        }
        // Only absolute links without a sitemap lastmod (which must be recorded) are cached.
        const cacheable = link.lastmod === undefined && ABSOLUTE.test(link.url);
        const known = cacheable ? (this.seen.get(link.url) ?? out.remember.get(link.url)) : undefined;
        let identity: string;
        if (known !== undefined) {
          cached++;
          identity = known;
        } else {
          const a = admit(this.policy, link.url, depth, base);
          if (!a.ok) {
            out.rejected.set(a.reason, (out.rejected.get(a.reason) ?? 0) + 1);
            // A link too deep to follow still says what its target is about (an imported archive's
            // links are all such: nothing is fetched from it).
            if (a.reason === 'too-deep' && source !== undefined && link.text && a.url) anchors.push({ target: a.url, text: link.text });
            continue;
          }
          out.urls.push({ url: a.url, fetchUrl: a.fetchUrl, depth, tunnel, ...(link.lastmod ? { lastmod: link.lastmod } : {}) });
          if (cacheable) out.remember.set(link.url, a.url);
          identity = a.url;
        }
        if (source !== undefined && link.text) anchors.push({ target: identity, text: link.text });
      }
      if (anchors.length) out.anchors.push({ source: source!, links: anchors });
    }
    if (cached) out.rejected.set('already-seen', (out.rejected.get('already-seen') ?? 0) + cached);
    out.ms += performance.now() - t0;
    return out;
  }

  /** The admitted links are in the frontier now (new or not): remembered only once their commit went through. */
  remember(admitted: Admitted): void {
    for (const [link, identity] of admitted.remember) this.seen.add(link, identity);
  }
}
