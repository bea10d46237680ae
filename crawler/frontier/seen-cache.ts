/**
 * A bounded memory of links already known to be in the frontier (each with the identity URL it
 * normalized to), in front of the SQLite seen-set
 * (Mercator kept such a cache of popular URLs in front of its disk-based URL-seen test). Pages
 * repeat the same navigation links: on rust-doc most of the links of a page were seen before,
 * and normalizing them and asking SQLite again was a third of the main thread's time.
 *
 * Keys are absolute links exactly as extracted. Two generations of at most capacity/2 keys: a key
 * found in the older one moves to the newer, the older one is dropped when the newer one is full.
 * Memory stays bounded however long the crawl runs.
 */
/** Links remembered at most, in two generations of half as many each. */
export const SEEN_LINKS_KEPT = 50_000;

export class SeenCache {
  private current = new Map<string, string>();
  private previous = new Map<string, string>();

  constructor(private readonly capacity = SEEN_LINKS_KEPT) {}

  /** The identity of a link known to be in the frontier, or undefined. */
  get(link: string): string | undefined {
    const hit = this.current.get(link);
    if (hit !== undefined) return hit;
    const old = this.previous.get(link);
    if (old !== undefined) this.add(link, old);
    return old;
  }

  has(link: string): boolean {
    return this.get(link) !== undefined;
  }

  /** Remember a link whose URL (`identity`) is in the frontier now. */
  add(link: string, identity: string): void {
    this.current.set(link, identity);
    if (this.current.size >= this.capacity / 2) {
      this.previous = this.current;
      this.current = new Map();
    }
  }

  get size(): number {
    return this.current.size + this.previous.size;
  }
}
